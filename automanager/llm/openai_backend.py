"""The `openai` backend: any OpenAI-compatible server (OpenAI, Ollama, vLLM, llama.cpp).

Parsing asks for structured output with the JSON schema of the closed vocabulary (the LLM emits
data, never ASP text); a server that rejects schemas gets JSON mode instead. An invalid answer
is sent back once with what is wrong; after that, or on any server error or timeout, the
offline parser takes the turn and the turn record says why. Responses: the LLM may rephrase the
decided reply, and a check (`unfaithful`) keeps its text only when it keeps the decision (every
price and name, a refusal as a refusal) and adds nothing (no price, number, name or promise).
The SDK does the retrying (max_retries); nothing is stacked on it.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import re
import time
import tomllib
from dataclasses import asdict, dataclass, field
from functools import lru_cache

from .. import paths
from ..language.phrases import menu_examples, prompt_examples
from ..language.text import find_mentions, tokenize
from ..menu.model import Menu
from ..settings import setting
from ..vocab import VOCABULARIES, VocabError, describe, json_schema, validate
from .breaker import Breaker

DEFAULT_MODEL = "gpt-4o-mini"
ENABLE_HINT = ("Set OPENAI_API_KEY (OpenAI), or OPENAI_BASE_URL for a local server such as Ollama or vLLM "
               "(no key needed), and optionally --model or AUTOMANAGER_MODEL.")


class LLMError(Exception):
    """The LLM could not give a usable answer this turn (server error, timeout, invalid twice)."""


@dataclass
class LLMConfig:
    model: str
    base_url: str | None
    api_key: str
    timeout: float = 20.0
    max_retries: int = 2
    deadline: float = 1.5  # seconds for the whole LLM step of a turn, retries and re-asks included
    cool_down: float = 5.0  # seconds on the offline parser after a failure before the first probe
    rephrase: bool = False  # a second call per turn for the LLM's wording; the templates are the voice

    @classmethod
    def from_env(cls, model: str | None = None) -> LLMConfig | None:
        """The configuration from the environment, or None when no LLM is configured;
        ConfigError when a setting is unusable (found at start, not at the first turn)."""
        key, base = os.environ.get("OPENAI_API_KEY"), os.environ.get("OPENAI_BASE_URL")
        if not key and not base:
            return None
        return cls(model=model or os.environ.get("AUTOMANAGER_MODEL") or DEFAULT_MODEL, base_url=base,
                   api_key=key or "not-needed",  # local servers take any key
                   timeout=setting("AUTOMANAGER_LLM_TIMEOUT", float, 20.0, "a number of seconds above 0",
                                   lambda seconds: 0 < seconds < math.inf),
                   max_retries=setting("AUTOMANAGER_LLM_RETRIES", int, 2, "a whole number of retries, 0 or more",
                                       lambda retries: retries >= 0),
                   deadline=setting("AUTOMANAGER_LLM_DEADLINE", float, 1.5, "a number of seconds above 0",
                                    lambda seconds: 0 < seconds < math.inf),
                   cool_down=setting("AUTOMANAGER_LLM_COOL_DOWN", float, 5.0, "a number of seconds above 0",
                                     lambda seconds: 0 < seconds < math.inf),
                   rephrase=bool(setting("AUTOMANAGER_LLM_REPHRASE", int, 0, "0 (templates only) or 1 (the LLM "
                                         "rephrases each reply, one more call a turn)", lambda on: on in (0, 1))))


@dataclass
class Usage:
    """What the LLM cost in one turn (the `llm` field of a --json record)."""

    backend: str = "offline"
    model: str | None = None
    calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    latency_ms: float = 0.0
    prompts: list[str] = field(default_factory=list)  # name@hash of each prompt used
    structured: str | None = None  # json_schema | json_object
    reask: str | None = None  # what was wrong with the first answer, if it was re-asked
    fallback: str | None = None  # why the offline parser took the turn
    answered_by: str = "offline"  # who read the line: llm | offline
    notice: str | None = None  # one line for the person: the LLM stopped answering
    response: str | None = None  # llm | template
    response_rejected: str | None = None  # why the LLM's wording was not used

    def as_dict(self) -> dict:
        return asdict(self)


class Prompts:
    """The prompt files of prompts/, rendered with the vocabulary and the menu's words."""

    def __init__(self, menu: Menu):
        self.values = {"restaurant": menu.restaurant, "categories": ", ".join(sorted(menu.categories)),
                       "phrase_examples": prompt_examples(menu), **menu_examples(menu)}

    def render(self, name: str, role: str, fields: bool = True) -> tuple[str, str]:
        """(text, name@hash) of prompts/<name>.txt; without the forms' fields when the request
        sends the JSON schema (it has them)."""
        template = (paths.data_dir("prompts") / f"{name}.txt").read_text(encoding="utf-8")
        text = template.format(vocabulary=describe(VOCABULARIES[role], fields), **self.values)
        return text, f"{name}@{hashlib.sha256(text.encode()).hexdigest()[:10]}"


class OpenAIBackend:
    def __init__(self, config: LLMConfig, menu: Menu):
        self.config = config
        self.menu = menu
        self.prompts = Prompts(menu)
        import openai  # imported here: it takes most of a second, and the offline backend never needs it

        self.client = openai.OpenAI(api_key=config.api_key, base_url=config.base_url, timeout=config.timeout,
                                    max_retries=config.max_retries)
        self.schema_accepted = True  # turned off for the process once the server rejects JSON schemas
        self.breaker = Breaker(self.probe, config.cool_down)

    def probe(self) -> None:
        """Is the server answering? (the breaker's background retry: the models list, one try)"""
        self.client.with_options(timeout=self.config.deadline, max_retries=0).models.list()

    def complete(self, messages: list[dict], usage: Usage, response_format: dict | None) -> str:
        import openai

        start = time.perf_counter()
        try:
            kwargs = {"response_format": response_format} if response_format else {}
            response = self.client.chat.completions.create(  # type: ignore[call-overload]  # messages as plain dicts
                model=self.config.model, messages=messages, temperature=0, **kwargs)
        except openai.APIError as exc:
            raise LLMError(f"{type(exc).__name__}: {exc}") from exc
        finally:
            usage.calls += 1
            usage.latency_ms = round(usage.latency_ms + (time.perf_counter() - start) * 1000, 2)
        if response.usage:
            usage.prompt_tokens += response.usage.prompt_tokens or 0
            usage.completion_tokens += response.usage.completion_tokens or 0
        if not response.choices:
            raise LLMError("the server answered with no choices")
        return response.choices[0].message.content or ""

    def extract(self, role: str, text: str, context: str, usage: Usage) -> list[tuple[str, dict]]:
        """The predicates of `text` as validated JSON forms; LLMError when none could be had."""
        usage.backend, usage.model = "openai", self.config.model
        system, name = self.prompts.render(f"{role}_parse", role, fields=not self.schema_accepted)
        usage.prompts.append(name)
        said = "Customer" if role == "customer" else "Manager"
        messages = [{"role": "system", "content": system},
                    {"role": "user", "content": f"Context: {context}\n{said}: {text}\nJSON:"}]
        for attempt in (1, 2):
            content = self.structured(role, messages, usage)
            try:
                return validate(VOCABULARIES[role], json.loads(content))
            except (ValueError, VocabError) as exc:
                problem = str(exc) if isinstance(exc, VocabError) else f"not valid JSON ({exc})"
                if attempt == 2:
                    raise LLMError(f"invalid answer after a re-ask: {problem}") from exc
                usage.reask = problem
                messages += [{"role": "assistant", "content": content},
                             {"role": "user", "content": f"That answer is invalid: {problem}. Answer again with "
                                                         "the JSON object only, using only the listed forms."}]
        raise AssertionError("unreachable")

    def structured(self, role: str, messages: list[dict], usage: Usage) -> str:
        import openai

        if self.schema_accepted:
            schema = {"type": "json_schema", "json_schema": {"name": f"{role}_predicates", "strict": True,
                                                             "schema": json_schema(VOCABULARIES[role])}}
            try:
                usage.structured = "json_schema"
                return self.complete(messages, usage, schema)
            except LLMError as exc:
                if not isinstance(exc.__cause__, openai.BadRequestError):
                    raise
                self.schema_accepted = False  # this server does not do JSON schemas: JSON mode from now on
                messages[0] = {"role": "system", "content": self.prompts.render(f"{role}_parse", role)[0]}
        usage.structured = "json_object"
        return self.complete(messages, usage, {"type": "json_object"})

    def rephrase(self, role: str, decided: str, actions: dict, usage: Usage) -> str:
        """The decided reply in the LLM's words when they keep every fact, else the decided reply."""
        system, name = self.prompts.render(f"{role}_respond", role)
        usage.prompts.append(name)
        facts = "\n".join(f"{pred}{tuple(args)}" for pred, rows in actions.items() for args in rows)
        messages = [{"role": "system", "content": system},
                    {"role": "user", "content": f"Predicates:\n{facts}\nDecided reply: {decided}\nReply:"}]
        try:
            text = self.complete(messages, usage, None).strip()
        except LLMError as exc:
            usage.response, usage.response_rejected = "template", str(exc)
            return decided
        problem = unfaithful(text, decided, self.menu)
        if problem:
            usage.response, usage.response_rejected = "template", problem
            return decided
        usage.response = "llm"
        return text


MONEY = re.compile(r"\$\s?\d+(?:\.\d{2})?")
NUMBER = re.compile(r"(?<![\w.$])\d+(?:\.\d+)?(?![\w.])")


def unfaithful(text: str, decided: str, menu: Menu) -> str | None:
    """Why `text` may not replace `decided`, or None. It must keep the decision: every price
    and menu name of the decided reply, and a refusal as a refusal; and add nothing: no price,
    number or menu name, and no promise (free, on its way, ...) the decided reply does not make."""
    if not text or len(text) > 4 * len(decided) + 200:
        return "empty or far too long"
    for pattern, what in ((MONEY, "price"), (NUMBER, "number")):
        added = set(pattern.findall(text)) - set(pattern.findall(decided))
        if added:
            return f"{what} {sorted(added)[0]} is not in the decided reply"
    said, meant = ({m.name for m in find_mentions(menu, tokenize(t))} for t in (text, decided))
    if said - meant:
        return f"{sorted(said - meant)[0]} is not in the decided reply"
    if meant - said:
        return f"{sorted(meant - said)[0]} of the decided reply is missing"
    dropped = set(MONEY.findall(decided)) - set(MONEY.findall(text))
    if dropped:
        return f"price {sorted(dropped)[0]} of the decided reply is missing"
    guard = rephrase_guard()
    if phrases_in(decided, guard["refusal"]) and not phrases_in(text, guard["refusal"]):
        return "the decided reply refuses something and the rephrasing does not"
    promised = phrases_in(text, guard["promises"]) - phrases_in(decided, guard["promises"])
    if promised:
        return f"'{sorted(promised)[0]}' promises what was not decided"
    return None


@lru_cache(maxsize=1)
def rephrase_guard() -> dict[str, list[str]]:
    """The phrase lists of prompts/guard.toml."""
    return tomllib.loads((paths.data_dir("prompts") / "guard.toml").read_text(encoding="utf-8"))


def phrases_in(text: str, phrases: list[str]) -> set[str]:
    """The phrases that occur in `text` as whole words (folded, as the parsers see text)."""
    words = " " + " ".join(tokenize(text)) + " "
    return {phrase for phrase in phrases if f" {phrase} " in words}
