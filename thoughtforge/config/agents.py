"""The agents a project may call: a command-line agent or an OpenAI-compatible endpoint, and
which one is the default."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Discriminator, Field, Tag, model_validator

from thoughtforge.config.section import Section, type_or
from thoughtforge.config.urls import HttpUrl


class TokenPrices(Section):
    """What an agent's provider charges, in US dollars per million tokens: how a call's money is
    reckoned when the agent reports tokens but no cost (`core.spend`)."""

    input: float = Field(ge=0, le=10_000)
    output: float = Field(ge=0, le=10_000)


class _AgentBase(Section):
    """What every kind of agent has: the window the prompt and the answer share, and the room kept
    in it for the answer (`max_tokens`), so a prompt is cut before it leaves no room to answer."""

    context_window_tokens: int = Field(100_000, gt=0)
    max_tokens: int | None = Field(None, gt=0)
    vision: bool = False
    price_per_million_tokens: TokenPrices | None = None

    @property
    def prompt_budget_tokens(self) -> int:
        """What a prompt may take of the window: all of it but the answer's room."""
        return self.context_window_tokens - (self.max_tokens or 0)

    @model_validator(mode="after")
    def _answer_fits(self) -> _AgentBase:
        if self.max_tokens is not None and self.max_tokens >= self.context_window_tokens:
            raise ValueError(
                f"max_tokens ({self.max_tokens}) must be smaller than context_window_tokens "
                f"({self.context_window_tokens}): the prompt needs room too"
            )
        return self


CliProfileName = Literal["claude", "codex", "gemini"]
"""The agent CLIs ThoughtForge knows how to drive (one module each in `adapters.agents.kinds`)."""


class CommandAgentSpec(_AgentBase):
    """How to run one agent CLI non-interactively. The prompt always goes in on stdin.

    With a `profile`, ThoughtForge picks the CLI's switches by the step (text only, or edits in
    the project and its test command) and reads its structured output; `flags` are then the
    person's own, added after the profile's. Without one, `flags` are the whole command line."""

    type: Literal["command"] = "command"
    command: str = Field(min_length=1)
    profile: CliProfileName | None = None
    flags: list[str] = []
    output: Literal["text", "claude_json"] = "text"


class OpenAIAgentSpec(_AgentBase):
    """An OpenAI-compatible chat-completions endpoint (OpenAI, llama.cpp, Ollama, vLLM, LM
    Studio). The key is read from the environment variable `api_key_env` at each call, so it is
    never in the config file, a log or a state file. `structured_output` is how a JSON step's
    schema is sent: OpenAI's `json_schema` form, llama.cpp's `json_object` + `schema`, or not."""

    type: Literal["openai"]
    base_url: HttpUrl
    model: str = Field(min_length=1)
    api_key_env: str | None = Field(None, pattern=r"^[A-Za-z_][A-Za-z0-9_]*$")
    temperature: float = Field(0.2, ge=0, le=2)
    max_tokens: int | None = Field(2048, gt=0)
    structured_output: Literal["json_schema", "json_object", "none"] = "json_schema"
    max_string_chars: int | None = Field(None, gt=0)
    """Sent in JSON schemas as every string's `maxLength` (and `MAX_SCHEMA_ITEMS` as every list's
    `maxItems`): a model held to the schema by a grammar cannot ramble inside a string."""
    section_grammar: bool = False
    """llama.cpp's server takes a GBNF `grammar`: Markdown steps then send one that holds the
    answer to their required `##` sections, a few bounded lines each."""
    max_image_bytes: int = Field(5_000_000, gt=0)
    """With `vision: true`: the largest image sent (as a content part); a larger one is
    downscaled when `max_image_side` is set and Pillow is installed, else skipped."""
    max_image_side: int | None = Field(None, ge=64)
    """With `vision: true`: images are downscaled to at most this many pixels a side (Pillow)."""


AgentSpec = Annotated[
    Annotated[CommandAgentSpec, Tag("command")] | Annotated[OpenAIAgentSpec, Tag("openai")],
    Discriminator(
        type_or("command"),
        custom_error_type="agent_type",
        custom_error_message="an agent type: command or openai",
    ),
]


class AgentsConfig(Section):
    default: str = "claude"
    call_timeout_seconds: float = Field(300, gt=0)
    max_reply_bytes: int = Field(2_000_000, gt=0)
    available: dict[str, AgentSpec] = {}

    @model_validator(mode="after")
    def _default_is_available(self) -> AgentsConfig:
        if self.default not in self.available:
            names = ", ".join(sorted(self.available)) or "none"
            raise ValueError(
                f"agents.default is '{self.default}' but agents.available defines: {names}"
            )
        return self
