"""A fake OpenAI-compatible server for tests: /v1/chat/completions on 127.0.0.1, scripted.

Parse requests (they carry a response_format) take their answers from `parses`, in order:
a dict of predicates (sent as JSON text), raw text (sent as is), or an event: {"status": 500},
{"delay": seconds, "then": answer}. With `parses` empty a parse gets {"predicates": [irrelevant]}.
Rephrase requests (no response_format) get `rephrase(decided_reply)`, by default the decided
reply itself. With `accept_schema` False a json_schema request is refused with HTTP 400, as
servers without structured outputs do.
"""

from __future__ import annotations

import json
import re
import threading
import time
from collections import deque
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class FakeOpenAI:
    def __init__(self):
        self.parses: deque = deque()
        self.requests: list[dict] = []
        self.headers: list[dict] = []
        self.accept_schema = True
        self.rephrase = lambda decided: decided
        self.count_tokens = False  # usage: a fixed 100 prompt tokens, or an estimate (4 characters a token)
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):  # quiet
                pass

            def do_GET(self):  # /v1/models: what the LLM breaker probes
                data = json.dumps({"object": "list", "data": [{"id": "fake-model", "object": "model",
                                                               "created": 0, "owned_by": "test"}]}).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                fake.requests.append(body)
                fake.headers.append(dict(self.headers))
                status, payload = fake.answer(body)
                data = json.dumps(payload).encode()
                try:
                    self.send_response(status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client timed out and left

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/v1"
        # a short poll: shutdown() waits for it, and the default (0.5 s) was half a second a test
        self.thread = threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True)

    def __enter__(self) -> FakeOpenAI:
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.server.shutdown()
        self.server.server_close()

    @property
    def parse_requests(self) -> list[dict]:
        return [r for r in self.requests if "response_format" in r]

    def answer(self, body: dict) -> tuple[int, dict]:
        fmt = body.get("response_format")
        said = "".join(message["content"] for message in body["messages"])  # what the model reads
        schema = json.dumps(fmt, ensure_ascii=False, separators=(",", ":")) if fmt else ""
        tokens = -(-len(said + schema) // 4) if self.count_tokens else 100
        if fmt is None:
            decided = re.search(r"Decided reply: (.*)\nReply:", body["messages"][-1]["content"], re.S).group(1)
            return 200, completion(self.rephrase(decided), tokens)
        if fmt["type"] == "json_schema" and not self.accept_schema:
            return 400, {"error": {"message": "response_format json_schema is not supported", "type":
                                   "invalid_request_error", "code": None, "param": "response_format"}}
        reply = self.parses.popleft() if self.parses else {"predicates": [{"predicate": "irrelevant"}]}
        if isinstance(reply, dict) and "delay" in reply:
            time.sleep(reply["delay"])
            reply = reply["then"]
        if isinstance(reply, dict) and "status" in reply:
            return reply["status"], {"error": {"message": "scripted failure", "type": "server_error"}}
        return 200, completion(reply if isinstance(reply, str) else json.dumps(reply), tokens)


def completion(content: str, prompt_tokens: int = 100) -> dict:
    return {"id": "chatcmpl-fake", "object": "chat.completion", "created": 0, "model": "fake-model",
            "choices": [{"index": 0, "message": {"role": "assistant", "content": content},
                         "finish_reason": "stop", "logprobs": None}],
            "usage": {"prompt_tokens": prompt_tokens, "completion_tokens": 20, "total_tokens": prompt_tokens + 20}}
