# A service in another language in the middle of a flow: Python's standard library only. For each request it calls
# NEXT with a traceparent of its own client span (the W3C propagation an OpenTelemetry SDK does), answers, and
# exports its server and client spans as OTLP/JSON to COLLECTOR, the way an SDK's exporter would.
import json, os, secrets, sys, time, urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

NEXT = os.environ.get("NEXT", "")
COLLECTOR = os.environ["COLLECTOR"]


def attr(key, value):
    kind = "intValue" if isinstance(value, int) else "stringValue"
    return {"key": key, "value": {kind: str(value) if kind == "intValue" else value}}


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def do_GET(self):
        start = time.time_ns()
        incoming = self.headers.get("traceparent", "")
        parts = incoming.split("-")
        trace_id = parts[1] if len(parts) == 4 else secrets.token_hex(16)
        parent = parts[2] if len(parts) == 4 else None
        server_id = secrets.token_hex(8)
        client_id = secrets.token_hex(8)
        query = self.path.split("?", 1)[1] if "?" in self.path else ""
        target = f"{NEXT}?{query}"
        call_start = time.time_ns()
        request = urllib.request.Request(target, headers={"traceparent": f"00-{trace_id}-{client_id}-01"})
        with urllib.request.urlopen(request) as answer:
            answered = json.loads(answer.read())
            call_status = answer.status
        call_end = time.time_ns()
        body = json.dumps({"service": "pricing", "answers": [answered]}).encode()
        self.send_response(200)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)
        end = time.time_ns()
        server = {
            "traceId": trace_id, "spanId": server_id, "name": "GET /price", "kind": 2,
            "startTimeUnixNano": str(start), "endTimeUnixNano": str(end),
            "attributes": [attr("http.request.method", "GET"), attr("url.path", self.path.split("?")[0]),
                           attr("url.query", query), attr("url.scheme", "http"), attr("server.address", "127.0.0.1"),
                           attr("http.response.status_code", 200)],
            "flags": 0x300,
        }
        if parent:
            server["parentSpanId"] = parent
        client = {
            "traceId": trace_id, "spanId": client_id, "parentSpanId": server_id, "name": "GET", "kind": 3,
            "startTimeUnixNano": str(call_start), "endTimeUnixNano": str(call_end),
            "attributes": [attr("http.request.method", "GET"), attr("url.full", target), attr("http.response.status_code", call_status)],
        }
        export = {"resourceSpans": [{"resource": {"attributes": [attr("service.name", "pricing")]},
                                     "scopeSpans": [{"scope": {"name": "pricing"}, "spans": [server, client]}]}]}
        post = urllib.request.Request(COLLECTOR.rstrip("/") + "/v1/traces", data=json.dumps(export).encode(),
                                      headers={"content-type": "application/json"})
        urllib.request.urlopen(post).read()


server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
print(f"listening {server.server_address[1]}", flush=True)
server.serve_forever()
