/** Tool descriptions, written for the coding agent that reads them when choosing a tool. */

export const ROWS_DESCRIPTION = `Read the rows of one section of a Probe capture, filtered, sorted and cut to the fields you need. Use it to answer "why did that call fail?" or "which calls made this request slow?".

A capture is one incoming request, background job or command run of the app; its "http" section has one row per outgoing HTTP call with: method, url, host, endpoint, status (null when no response arrived), failed, duration (ms), timing.{dns,connect,tls,wait,download,remote,protocol,redirects}, exception.{class,message,code,file,previous}, request_headers, request_payload, response_headers, response_bytes, response_capture, pool, fake, time (ms from capture start), origin.{file,line,chain} (the app code line that made the call).

Example input: {"section": "http", "where": [{"field": "failed", "op": "=", "value": "true"}], "fields": ["url", "status", "exception.message", "origin.file", "origin.line"]}
Slowest calls: {"section": "http", "sort": "duration", "dir": "desc", "limit": 5, "fields": ["endpoint", "duration", "timing.wait"]}

Without "id" it reads the newest capture that has rows in the section. Returns JSON {id, capture: {type, name, status}, section, total, matched, returned, rows: [{row, ...fields}], note?}: "row" is the row's index in the section. Long strings and bodies are clipped with a marker saying how much was left out; list a field in "fields" to get more of it.`;

export const LIST_DESCRIPTION = `List recent Probe captures, newest first: each incoming HTTP request, background job and command run the app made, with its outgoing HTTP call counts and errors. Start here to find the capture to look at, then use probe-show or probe-rows with its id.

Example input: {"has_errors": true, "since": "15m", "type": "request"}; {"type": "request", "group_by": "route"} to see which routes are called most; {"route": "/api/users/:id"} for the captures of one route.
Returns JSON {total, matched, returned, captures: [{id, type, name, route (the framework's route template, or null), status, duration (ms), started_at (epoch s), counts: {http: N}, has_errors, errors, warnings, tags, label, parent_id, trace_id, job_id, ended_by}], groups?: [{route, captures, with_errors, avg_duration, max_duration, latest_id}], note?}. An empty list with a note means nothing was recorded yet.`;

export const SHOW_DESCRIPTION = `Show one Probe capture: its header (type, name, status, duration, times, tags), summary (HTTP totals: calls, failed, time per host; the first error messages) and the first rows of each section ("request": the incoming request; "http": the outgoing calls).

Example input: {"id": "<id from probe-list>", "sections": ["http"], "limit": 5}. Without "id" it shows the newest capture.
Returns JSON {id, type, name, status, duration, started_at, ended_at, summary, counts: {section: rows}, sections: {http: {total, shown, rows: [{row, ...}]}, request: {...}}, note}. Long values are clipped; use probe-rows to filter, sort or read more rows.`;
