"""The plan deliverable: OPA templates (`templates/*.hbs`, `template`, `template_selection`),
the slot text rules (`slot_content`; escaping is `prompting.markdown_escaping`), the builder's
answer schema (`builder_response`), plan-mode safety rules, and the Phase 3 `builder` on the
shared engine.
"""

from thoughtforge.plugins.plan.builder import PlanBuilder
from thoughtforge.plugins.plan.draft import SectionProgress
from thoughtforge.plugins.plan.template import PlanTemplate, PlanTemplateError, load_template
from thoughtforge.plugins.plan.template_selection import TEMPLATES_DIR, select_template

__all__ = [
    "TEMPLATES_DIR",
    "PlanBuilder",
    "PlanTemplate",
    "PlanTemplateError",
    "SectionProgress",
    "load_template",
    "select_template",
]
