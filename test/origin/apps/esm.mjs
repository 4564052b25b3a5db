// The ESM side (`--import probe/register`): global fetch, axios, got and ky imported as modules.
import axios from 'axios';
import got from 'got';
import ky from 'ky';

const API = process.env.API_URL;
await (await fetch(`${API}/users/esm-fetch`)).json(); // call:fetch
await axios.get(`${API}/users/esm-axios`); // call:axios
await got(`${API}/users/esm-got`).json(); // call:got
await got(`${API}/users/esm-got-retry`, { retry: { limit: 1 } }).json(); // call:got-retry
await ky.get(`${API}/users/esm-ky-retry`, { retry: { limit: 1, backoffLimit: 1 } }).json(); // call:ky-retry
