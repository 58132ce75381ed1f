#!/usr/bin/env python3
"""A webhook receiver for vidpulse that verifies every delivery.

    pip install standardwebhooks
    VIDPULSE_WEBHOOK_SECRET=whsec_... scripts/webhook-receiver.py [PORT] [EVENTS_FILE]

Listens on 127.0.0.1:PORT (default $VIDPULSE_RECEIVER_PORT, else 9000;
--host 0.0.0.0 to accept other hosts) for POSTs on any path. Each delivery's
signature is checked with the `standardwebhooks` package (an independent
implementation of the Standard Webhooks specification vidpulse signs by)
under the endpoint's secret, VIDPULSE_WEBHOOK_SECRET: the `whsec_...` the
API answered when the endpoint was created or its secret rotated.

- verified: answers 204 and writes the event as one JSON line,
  {"webhook_id", "type", "timestamp", "data"}, appended to EVENTS_FILE or,
  without one, printed on stdout. An event seen before (the same
  webhook-id: a retry whose answer was lost, or a replay) is answered 204
  and not written again; the ids already in EVENTS_FILE count as seen;
- anything else (no or a wrong signature, a body changed on the way, a
  timestamp more than 5 minutes off): answers 400 and writes nothing.

Standard library only, apart from `standardwebhooks`.
"""

import argparse
import json
import os
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from standardwebhooks.webhooks import Webhook

MAX_BODY = 1 << 20  # vidpulse's bodies are well under a kilobyte
HEADERS = ("webhook-id", "webhook-timestamp", "webhook-signature")


class Events:
    """The verified events, each written once."""

    def __init__(self, path):
        self.path, self.seen, self.lock = path, set(), threading.Lock()
        if path and os.path.exists(path):
            with open(path, encoding="utf-8") as f:
                self.seen.update(json.loads(line)["webhook_id"] for line in f if line.strip())

    def record(self, webhook_id, event):
        """Writes `event` unless its id was seen; whether it was new."""
        line = json.dumps({"webhook_id": webhook_id, "type": event.get("type"),
                           "timestamp": event.get("timestamp"), "data": event.get("data")})
        with self.lock:
            if webhook_id in self.seen:
                return False
            self.seen.add(webhook_id)
            if self.path:
                with open(self.path, "a", encoding="utf-8") as f:
                    f.write(line + "\n")
            else:
                print(line, flush=True)
            return True


def log(text):
    print(f"webhook-receiver: {text}", file=sys.stderr, flush=True)


def handler(webhook, events):
    class Handler(BaseHTTPRequestHandler):
        def do_POST(self):
            try:
                length = int(self.headers.get("Content-Length") or 0)
            except ValueError:
                return self.answer(400)
            if not 0 <= length <= MAX_BODY:
                return self.answer(413)
            body = self.rfile.read(length)
            headers = {name: self.headers.get(name, "") for name in HEADERS}
            try:
                event = webhook.verify(body, headers)  # the parsed body, once the signature holds
            except Exception as e:  # WebhookVerificationError, or headers too malformed to read
                log(f"refused: {type(e).__name__}: {e}")
                return self.answer(400)
            if not isinstance(event, dict):
                return self.answer(400)
            new = events.record(headers["webhook-id"], event)  # False for an id seen before
            log(f"{'verified' if new else 'duplicate'} {event.get('type')} {headers['webhook-id']}")
            self.answer(204)

        def do_GET(self):
            self.answer(405)

        def answer(self, status):
            self.send_response(status)
            if status == 405:
                self.send_header("Allow", "POST")
            self.send_header("Content-Length", "0")
            self.end_headers()

        def log_message(self, *_):
            pass  # do_POST logs one line per delivery

    return Handler


def main():
    parser = argparse.ArgumentParser(description="A webhook receiver for vidpulse that verifies every delivery.")
    parser.add_argument("port", nargs="?", type=int,
                        default=int(os.environ.get("VIDPULSE_RECEIVER_PORT", "9000")),
                        help="port to listen on (default $VIDPULSE_RECEIVER_PORT, else 9000)")
    parser.add_argument("events_file", nargs="?", help="append verified events here (default: stdout)")
    parser.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    args = parser.parse_args()

    secret = os.environ.get("VIDPULSE_WEBHOOK_SECRET", "").strip()
    if not secret:
        sys.exit("webhook-receiver: set VIDPULSE_WEBHOOK_SECRET to the endpoint's whsec_... secret")
    webhook = Webhook(secret)  # the endpoint's whsec_...
    server = ThreadingHTTPServer((args.host, args.port), handler(webhook, Events(args.events_file)))
    log(f"listening on http://{args.host}:{server.server_port}/")
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    main()
