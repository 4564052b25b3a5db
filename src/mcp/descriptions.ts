/** Tool descriptions, written for the coding agent that reads them when choosing a tool. */

export const ROWS_DESCRIPTION = `Read the rows of a section of Probe captures, filtered, sorted and cut to the fields you need. Use it to answer "why did that call fail?", "which calls made this request slow?" or "which calls to the payments API failed in the last hour?".

A capture is one incoming request, background job, command run or test case of the app; its "http" section (the default) has one row per outgoing HTTP call with: method, url, host, endpoint, status (null when no response arrived), failed, duration (ms), timing.{dns,connect,tls,wait,download,remote,protocol,redirects}, exception.{class,message,code,file,previous}, request_headers, request_payload, response_headers, response_bytes, response_capture, pool, fake, time (ms from capture start), origin.{file,line,chain} (the app code line that made the call). "row" is a row's index in its section.

Example input: {"where": [{"field": "failed", "op": "=", "value": "true"}], "fields": ["row", "url", "status", "exception.message", "origin.file", "origin.line"]}
Slowest calls: {"sort": "duration", "dir": "desc", "limit": 5, "fields": ["endpoint", "duration", "timing.wait"]}
Across captures: {"since": "1h", "type": "request", "name": "POST /checkout*", "where": [{"field": "status", "op": ">=", "value": "500"}], "fields": ["url", "status"]}
Aggregates: {"since": "1h", "group_by": "endpoint", "sort": "p95"} gives {groups: [{key, count, failed, p50, p95, max (ms), bytes, first, last (epoch s), example: {capture_id, row}}], group_count}; sort by any of those.

Valid values: op is one of = != > >= < <= contains starts_with; dir asc or desc; limit 1 to 500 (default 50); since a number and s, m, h or d; type request, job, command or test.
Without "id" it reads the newest capture that has rows in the section (narrowed by type and name when given). With "since" or "id": "*" it reads every capture started within since (or every stored one) that matches type and name, newest capture first, and each row also carries capture_id and capture_name.
Returns JSON {id, capture: {id, type, name, status, started_at} (null across captures), section, captures? (how many were read across captures), total, matched, returned, rows, note?}. With "fields" each row holds exactly those fields (list "row" to get the index); without, whole rows with "row" first. Long strings and bodies are clipped with a marker saying how much was left out; list a field in "fields" to get more of it, or read one whole row with probe-show {"id", "section", "row"}.`;

export const LIST_DESCRIPTION = `List recent Probe captures, newest first: each incoming HTTP request, background job, command run and test case (type "test", status "passed" or "failed"; a failed test always has has_errors true) the app made, with its outgoing HTTP call counts and errors. Start here to find the capture to look at, then use probe-show or probe-rows with its id.

Example input: {"has_errors": true, "since": "15m", "type": "request"}. Which calls did the failing tests make: {"type": "test", "has_errors": true}, then probe-rows with each id. {"type": "request", "group_by": "route"} to see which routes are called most; {"route": "/api/users/:id"} for the captures of one route.
Valid values: since a number and s, m, h or d ("30s", "15m", "2h", "1d"); type request, job, command or test; has section names such as "http" or "request"; group_by route; limit 1 to 500 (default 20).
Returns JSON {total, matched, returned, captures: [{id, type, name, route (the framework's route template, or null), status, duration (ms), started_at (epoch s), counts: {http: N}, has_errors, errors, warnings, tags, label, parent_id, trace_id, job_id, ended_by, sampling?}], groups?: [{route, captures, with_errors, avg_duration, max_duration, latest_id}], sampling?: {rate, max_per_second, skipped} (when sampling is in effect: root units not recorded), note?}. An empty list with a note means nothing was recorded yet.`;

export const SHOW_DESCRIPTION = `Show one Probe capture: its header (type, name, status, duration, times, tags), summary (HTTP totals: calls, failed, time per host; the first error messages) and the first rows of each section ("request": the incoming request; "http": the outgoing calls). Or, with "row", one row whole.

Example input: {"id": "<id from probe-list>", "sections": ["http"], "limit": 5}. Without "id" it shows the newest capture.
One row whole: {"id": "<id>", "section": "http", "row": 2}; "row" is the index probe-rows returns and the dashboard shows (0 is the first row); section defaults to "http"; without "id" it reads the newest capture that has the section.
Valid values: limit 0 to 100 (default 5); row 0 up to the section's row count minus one; sections and section name sections of the capture (counts lists them).
Returns JSON {id, type, name, status, duration, started_at, ended_at, summary, counts: {section: rows}, sections: {http: {total, shown, rows: [{row, ...}]}, request: {...}}, note}; with "row": {id, capture: {id, type, name, status, started_at}, section, total, row, data: {...the whole row}, note}. Long values are clipped with a marker (in one whole row only strings over 4000 characters and bodies over 8000); use probe-rows to filter, sort or read more rows.`;
