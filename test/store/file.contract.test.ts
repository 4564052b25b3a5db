import { runStoreContract } from './contract';
import { fileDriver } from './file-driver';

runStoreContract(fileDriver);
