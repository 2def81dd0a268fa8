"""`config.yaml`: one pydantic model per section, validated once at start-up.

Unknown keys are rejected so a typo is reported rather than silently ignored. Relative paths are
resolved against the directory holding the config file, not the current directory.
"""

from __future__ import annotations

import logging
import os
import re
import shutil
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any, Literal
from urllib.parse import parse_qs, urlsplit

import yaml
from pydantic import (
    AfterValidator,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Discriminator,
    Field,
    SecretStr,
    Tag,
    ValidationError,
    field_validator,
    model_validator,
)
from pydantic_core import PydanticCustomError

from thoughtforge.errors import ConfigError

CONFIG_ENV_VAR = "THOUGHTFORGE_CONFIG"
DEFAULT_CONFIG_NAME = "config.yaml"
EXAMPLE_NAME = "config.yaml.example"
PACKAGED_EXAMPLE = Path(__file__).with_name(EXAMPLE_NAME)
STATE_DIR = ".thoughtforge"
_logger = logging.getLogger("thoughtforge")
_SECRET_WORDS = ("token", "secret", "password", "api_key", "credential")


class _Section(BaseModel):
    model_config = ConfigDict(extra="forbid")


class ProjectsConfig(_Section):
    directory: Path = Path("projects")


class PolishConfig(_Section):
    critical_max: int = Field(0, ge=0)
    medium_max: int = Field(3, ge=0)
    minor_max: int = Field(5, ge=0)
    max_iterations: int = Field(50, ge=1)
    stagnation_limit: int = Field(3, ge=2)
    retry_malformed_output: int = Field(2, ge=0)
    reviewer_agent: str | None = None


class ConcurrencyConfig(_Section):
    max_parallel_runs: int = Field(3, ge=1)
    max_parallel_agent_calls: int = Field(2, ge=1)


class _AgentBase(_Section):
    """What every kind of agent has: the window the prompt and the answer share, and the room kept
    in it for the answer (`max_tokens`), so a prompt is cut before it leaves no room to answer."""

    context_window_tokens: int = Field(100_000, gt=0)
    max_tokens: int | None = Field(None, gt=0)
    vision: bool = False

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


class CommandAgentSpec(_AgentBase):
    """How to run one agent CLI non-interactively. The prompt always goes in on stdin."""

    type: Literal["command"] = "command"
    command: str = Field(min_length=1)
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


def _type_or(default: str) -> Callable[[Any], str]:
    """A section's `type`, for a discriminated union of sections; sections written before the
    union existed have none and are `default` (agents: command, channels: ntfy)."""

    def type_of(value: Any) -> str:
        if isinstance(value, dict):
            return str(value.get("type", default))
        return str(getattr(value, "type", default))

    return type_of


AgentSpec = Annotated[
    Annotated[CommandAgentSpec, Tag("command")] | Annotated[OpenAIAgentSpec, Tag("openai")],
    Discriminator(
        _type_or("command"),
        custom_error_type="agent_type",
        custom_error_message="an agent type: command or openai",
    ),
]


class AgentsConfig(_Section):
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


def _http_url(value: str) -> str:
    """A channel or board URL is checked at start-up, not at the first transition. One with a
    user or password in it is refused: the URL is shown in logs and by `doctor`, so a secret
    belongs in the channel's `token`, which never is."""
    parts = urlsplit(value)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise PydanticCustomError("http_url", "an http(s) URL with a host, like https://host:port")
    if "@" in parts.netloc:
        raise PydanticCustomError(
            "http_url",
            "an http(s) URL without a user or password in it (put the secret in `token`)",
        )
    try:
        parts.port  # noqa: B018 - raises on a port that is not a number
    except ValueError:
        raise PydanticCustomError("http_url", "an http(s) URL whose port is a number") from None
    return value.rstrip("/")


HttpUrl = Annotated[str, AfterValidator(_http_url)]


class NtfyChannel(_Section):
    """An ntfy server: the summary is POSTed to `<url>/<topic>`."""

    type: Literal["ntfy"] = "ntfy"
    url: HttpUrl = "https://ntfy.sh"
    topic: str = Field(min_length=1, pattern=r"^[-_A-Za-z0-9]{1,64}$")
    token: SecretStr | None = None


class WebhookChannel(_Section):
    """Any HTTP endpoint: the notification is POSTed as JSON."""

    type: Literal["webhook"]
    url: HttpUrl
    token: SecretStr | None = None


NotificationChannel = Annotated[
    Annotated[NtfyChannel, Tag("ntfy")] | Annotated[WebhookChannel, Tag("webhook")],
    Discriminator(
        _type_or("ntfy"),
        custom_error_type="channel_type",
        custom_error_message="a channel type: ntfy or webhook",
    ),
]


class NotificationsConfig(_Section):
    enabled: bool = False
    timeout_seconds: float = Field(3, gt=0, le=30)
    channels: list[NotificationChannel] = []


class NotionConfig(_Section):
    """`base_url` points the client elsewhere (a proxy, or the tests' local server)."""

    enabled: bool = False
    token: SecretStr | None = None
    default_pages: list[str] = []
    base_url: HttpUrl | None = None
    timeout_seconds: float = Field(30, gt=0, le=600)


class GoogleDriveConfig(_Section):
    """`credentials_path` is a service-account JSON key or an authorized-user token file (its
    own `token_uri` is used); `base_url` points the Drive API elsewhere (a proxy, or the tests'
    local server)."""

    enabled: bool = False
    credentials_path: Path | None = None
    default_documents: list[str] = []
    base_url: HttpUrl | None = None
    timeout_seconds: float = Field(30, gt=0, le=600)


class ConnectorsConfig(_Section):
    notion: NotionConfig = NotionConfig()
    google_drive: GoogleDriveConfig = GoogleDriveConfig()


class VibeKanbanConfig(_Section):
    """The board. Without `url`, the port a local Vibe Kanban wrote to its port file is used.

    `code_execution` runs code mode's build and fix steps as Vibe Kanban task attempts with
    `executor_profile` (`EXECUTOR` or `EXECUTOR:VARIANT`, as Vibe Kanban's profiles name them)
    instead of calling the coding agent directly; it does not need `enabled`."""

    enabled: bool = False
    url: HttpUrl | None = None
    project_name: str = Field("ThoughtForge", min_length=1)
    timeout_seconds: float = Field(2, gt=0, le=30)
    code_execution: bool = False
    executor_profile: str = Field("CLAUDE_CODE", pattern=r"^[A-Z][A-Z0-9_]*(:[A-Z][A-Z0-9_]*)?$")


class ServerConfig(_Section):
    """Where the Prefect server that ThoughtForge starts or talks to listens, and the database it
    keeps runs in: SQLite in the Prefect home unless `database_url` names PostgreSQL (for several
    machines), whose password comes from `THOUGHTFORGE_DATABASE_PASSWORD`, never this file."""

    host: str = "127.0.0.1"
    port: int = Field(4200, ge=1, le=65535)
    database_url: str | None = None

    @field_validator("database_url")
    @classmethod
    def _postgresql_without_password(cls, value: str | None) -> str | None:
        if value is None:
            return None
        parts = urlsplit(value)
        if parts.scheme != "postgresql+asyncpg" or not parts.hostname:
            raise PydanticCustomError(
                "database_url",
                "a postgresql+asyncpg://user@host:port/database URL (leave it out for SQLite)",
            )
        if parts.password is not None or "password" in parse_qs(parts.query):
            raise PydanticCustomError(
                "database_url",
                "a URL without its password: put it in the environment variable "
                "THOUGHTFORGE_DATABASE_PASSWORD",
            )
        return value


class DirectoryConfig(_Section):
    directory: Path | None = None


class PromptsConfig(_Section):
    """The folder whose `*.md` files override the built-in prompts; the workbench's prompt
    editor saves there (and creates it on the first save)."""

    directory: Path | None = Path("prompts")


class HumanConfig(_Section):
    """How a deployment's run waits for the person: it keeps its process (an answer reaches the
    agent within a second) for `hold_seconds`, then suspends (nothing held; the next answer
    takes a few seconds to re-enter). 0 suspends at once."""

    hold_seconds: float = Field(300, ge=0, le=86_400)


class WebConfig(_Section):
    """The workbench (`thoughtforge web`, started by `up`). Loopback by default: bound elsewhere
    it has no authentication. `allowed_hosts` are extra names the page may be reached by (the
    `Host` header is checked against DNS rebinding)."""

    host: str = "127.0.0.1"
    port: int = Field(8765, ge=1, le=65535)
    allowed_hosts: list[str] = []


class Phase3CompletenessConfig(_Section):
    plan_min_chars: int = Field(500, ge=0)
    code_min_source_files: int = Field(1, ge=0)


class ResourcesConfig(_Section):
    max_file_bytes: int = Field(10 * 1024 * 1024, gt=0)


class BrainDumpConfig(_Section):
    min_chars: int = Field(100, ge=0)
    max_chars: int = Field(200_000, gt=0)


def _language_name(value: str) -> str:
    if not re.fullmatch(r"[a-z][a-z0-9_.+#-]*", value):
        raise PydanticCustomError("language_name", "a lower-case language name, like python")
    return value


def _command(value: Any) -> Any:
    """A command is argv, never a shell line: no quoting rules to get wrong."""
    if not (isinstance(value, list) and value and all(isinstance(w, str) and w for w in value)):
        raise PydanticCustomError(
            "command", 'a command as a non-empty list of words, like ["make", "test"]'
        )
    return value


LanguageName = Annotated[str, AfterValidator(_language_name)]
Command = Annotated[list[str], BeforeValidator(_command)]


def default_test_commands() -> dict[str, list[str]]:
    """Each language's standard test entry point, which the coding agent is told to provide."""
    return {
        "python": ["python", "-m", "pytest", "-q", "-rfE"],
        "node": ["npm", "test", "--silent"],
        "make": ["make", "test"],
        "rust": ["cargo", "test"],
        "go": ["go", "test", "./..."],
    }


class CodeConfig(_Section):
    """Code deliverables. `test_commands` given in the file are added to the defaults, or
    replace the default of the same language."""

    test_commands: dict[LanguageName, Command] = Field(default_factory=default_test_commands)
    test_timeout_seconds: float = Field(600, gt=0)
    # build in ordered steps, a commit per step; a failed step is undone and retried
    step_mode: bool = False
    max_step_attempts: int = Field(3, ge=1)
    # Phase 3 fix-and-retest cycles before the build halts stuck (the stuck rules come first)
    max_fix_cycles: int = Field(10, ge=1)
    # Phase 2 Open Source Discovery: one more agent call per spec proposal for the scorecards
    discovery: bool = False

    @field_validator("test_commands")
    @classmethod
    def _over_the_defaults(cls, value: dict[str, list[str]]) -> dict[str, list[str]]:
        return default_test_commands() | value


class Config(_Section):
    projects: ProjectsConfig = ProjectsConfig()
    polish: PolishConfig = PolishConfig()
    concurrency: ConcurrencyConfig = ConcurrencyConfig()
    agents: AgentsConfig
    notifications: NotificationsConfig = NotificationsConfig()
    connectors: ConnectorsConfig = ConnectorsConfig()
    vibekanban: VibeKanbanConfig = VibeKanbanConfig()
    server: ServerConfig = ServerConfig()
    web: WebConfig = WebConfig()
    human: HumanConfig = HumanConfig()
    prompts: PromptsConfig = PromptsConfig()
    plugins: DirectoryConfig = DirectoryConfig()
    phase3_completeness: Phase3CompletenessConfig = Phase3CompletenessConfig()
    resources: ResourcesConfig = ResourcesConfig()
    brain_dump: BrainDumpConfig = BrainDumpConfig()
    code: CodeConfig = CodeConfig()

    def agent(self, name: str | None = None) -> CommandAgentSpec | OpenAIAgentSpec:
        name = name or self.agents.default
        try:
            return self.agents.available[name]
        except KeyError:
            names = ", ".join(sorted(self.agents.available))
            raise ConfigError(f"agent '{name}' is not in agents.available ({names})") from None


def config_path(explicit: Path | None = None) -> Path:
    """--config wins, then $THOUGHTFORGE_CONFIG, then ./config.yaml."""
    if explicit is not None:
        return explicit
    return Path(os.environ.get(CONFIG_ENV_VAR) or DEFAULT_CONFIG_NAME)


def state_dir(config_file: Path) -> Path:
    """ThoughtForge's own working files for one set-up, beside its config: what `up` started,
    the Vibe Kanban board's repository."""
    return config_file.resolve().parent / STATE_DIR


def load_config(path: Path | None = None, *, announce: Any = print) -> Config:
    """Read and validate the config; copy the example beside it when the file is missing."""
    path = config_path(path)
    if not path.exists():
        _create_from_example(path, announce)
    try:
        raw = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"cannot read {path}: {exc}") from None
    except yaml.YAMLError as exc:
        raise ConfigError(f"{path} is not valid YAML: {exc}") from None
    if not isinstance(raw, dict):
        raise ConfigError(f"{path} must hold a YAML mapping of sections, got {type(raw).__name__}")
    try:
        config = Config.model_validate(raw)
    except ValidationError as exc:
        raise ConfigError(_describe_validation_error(path, exc)) from None
    return _resolve_paths(config, path.resolve().parent)


def write_example(target: Path) -> None:
    """Write the packaged example to `target` (used by `thoughtforge init`)."""
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(PACKAGED_EXAMPLE, target)


def _create_from_example(path: Path, announce: Any) -> None:
    example = path.with_name(EXAMPLE_NAME)
    if not example.exists():
        raise ConfigError(
            f"no config file at {path.resolve()} (and no {EXAMPLE_NAME} beside it to copy). "
            "Run `thoughtforge init` to create one."
        )
    shutil.copyfile(example, path)
    announce(f"Created {path} from {example}. Edit it to choose your agent.")


def _describe_validation_error(path: Path, exc: ValidationError) -> str:
    lines = [f"{path} has {exc.error_count()} invalid setting(s):"]
    for error in exc.errors():
        key = ".".join(str(part) for part in error["loc"]) or "(top level)"
        if error["type"] == "missing":
            lines.append(f"  {key}: required key is missing")
        elif error["type"] == "extra_forbidden":
            lines.append(f"  {key}: unknown key (check the spelling against {EXAMPLE_NAME})")
        else:
            got = _shown(error["loc"], error.get("input"))
            expected = error["msg"][:1].lower() + error["msg"][1:]
            lines.append(f"  {key}: got {got}; expected {expected}")
    return "\n".join(lines)


def _shown(location: tuple[int | str, ...], value: object) -> str:
    """What of a rejected value an error may repeat: never a secret, nor a whole section (it may
    hold one), nor a URL's user, password or path (a webhook's path is often its secret)."""
    if _is_secret(location):
        return "***"
    if isinstance(value, dict):
        return f"a section of type {value['type']!r}" if "type" in value else "a section"
    if location and str(location[-1]).endswith("url") and isinstance(value, str):
        parts = urlsplit(value)
        host = parts.netloc.rsplit("@", 1)[-1]
        hidden = "***@" if "@" in parts.netloc else ""
        if parts.netloc and (parts.path.strip("/") or parts.query or hidden):
            path = "/…" if parts.path.strip("/") or parts.query else ""
            return repr(f"{parts.scheme}://{hidden}{host}{path}")
    return repr(value)


def _is_secret(location: tuple[int | str, ...]) -> bool:
    """A rejected value under a secret-looking key is never echoed: it may be a real token."""
    return any(
        isinstance(part, str) and any(word in part.lower() for word in _SECRET_WORDS)
        for part in location
    )


def _resolve_paths(config: Config, base: Path) -> Config:
    def resolve(p: Path | None) -> Path | None:
        return None if p is None else (base / p.expanduser()).resolve()

    config.projects.directory = resolve(config.projects.directory)
    config.prompts.directory = resolve(config.prompts.directory)
    config.plugins.directory = resolve(config.plugins.directory)
    drive = config.connectors.google_drive
    drive.credentials_path = resolve(drive.credentials_path)
    return config


class LiveConfig:
    """The config as the file says now, for settings read at each use (`vibekanban.enabled`,
    the channels): switching the board or a channel on or off needs no restart.

    The file is re-read only when its modification time or size changed. A file that goes
    missing or stops validating keeps the last good config; the reason is kept in `problem` and
    logged once as a warning.
    """

    def __init__(self, path: Path, config: Config) -> None:
        self.path = path
        self.problem: str | None = None
        self._config = config
        self._stamp = self._stat()
        self._lock = threading.Lock()

    def current(self) -> Config:
        """Safe from several threads (the courier's lanes): none sees the new stamp with the
        old settings."""
        with self._lock:
            stamp = self._stat()
            if stamp != self._stamp:
                self._stamp = stamp
                if stamp is None:  # gone, perhaps for a moment: never recreated from the example
                    self._report(f"{self.path} is missing; using the settings it last held")
                    return self._config
                try:
                    self._config = load_config(self.path, announce=lambda message: None)
                    self.problem = None
                except ConfigError as exc:
                    self._report(f"{exc}\nUsing the settings it last held.")
            return self._config

    def _report(self, problem: str) -> None:
        self.problem = problem
        _logger.warning("%s", problem)

    def _stat(self) -> tuple[int, int] | None:
        try:
            info = self.path.stat()
        except OSError:
            return None
        return info.st_mtime_ns, info.st_size
