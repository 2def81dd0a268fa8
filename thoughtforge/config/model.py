"""`Config`: the whole file, one field per section, and the agent a step asks for by name."""

from __future__ import annotations

from thoughtforge.config.agents import AgentsConfig, CommandAgentSpec, OpenAIAgentSpec
from thoughtforge.config.code import CodeConfig
from thoughtforge.config.connectors import ConnectorsConfig
from thoughtforge.config.folders import DirectoryConfig, ProjectsConfig, PromptsConfig
from thoughtforge.config.limits import (
    BrainDumpConfig,
    BudgetConfig,
    ConcurrencyConfig,
    HumanConfig,
    Phase3CompletenessConfig,
    ResourcesConfig,
)
from thoughtforge.config.notifications import NotificationsConfig
from thoughtforge.config.polish import PolishConfig
from thoughtforge.config.section import Section
from thoughtforge.config.services import ServerConfig, VibeKanbanConfig, WebConfig
from thoughtforge.errors import ConfigError


class Config(Section):
    projects: ProjectsConfig = ProjectsConfig()
    polish: PolishConfig = PolishConfig()
    budget: BudgetConfig = BudgetConfig()
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
