// The ESM side (`--import probe/register`): global fetch, axios, got and ky imported as modules; the marker at
// the end of a line names the call, and the test checks its rows carry this file and that line.
import axios from 'axios';
import got from 'got';
import ky from 'ky';

const API = process.env.API_URL;
await (await fetch(`${API}/users/esm-fetch`)).json(); // call:fetch
await axios.get(`${API}/users/esm-axios`); // call:axios
await got(`${API}/users/esm-got`).json(); // call:got
await got(`${API}/users/esm-got-retry`, { retry: { limit: 1 } }).json(); // call:got-retry
await ky.get(`${API}/users/esm-ky-retry`, { retry: { limit: 1, backoffLimit: 1 } }).json(); // call:ky-retry
await ky(`${API}/users/esm-ky-call-retry`, { retry: { limit: 1, backoffLimit: 1 } }).json(); // call:ky-call-retry
