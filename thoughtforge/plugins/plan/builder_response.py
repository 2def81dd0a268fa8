"""What the plan builder's agent answers, and which of its slot contents the builder may keep.

Every answer carries the stuck signal, the plan mode's only stuck detection. Content for a slot the
template lacks is discarded (the builder logs a warning); empty or placeholder content is rejected
so the builder asks again for those slots.
"""

from __future__ import annotations

from collections.abc import Collection
from typing import Any

from pydantic import BaseModel, ConfigDict, ValidationError

from thoughtforge.errors import UnusableReply, schema_problems
from thoughtforge.plugins.plan.slot_content import unfilled_reason
from thoughtforge.prompting import json_objects

_RESPONSE_KEYS = frozenset({"slots", "stuck"})
MIN_SLOT_CHARS = 12


class PlanBuilderResponse(BaseModel):
    model_config = ConfigDict(extra="ignore")

    slots: dict[str, str] = {}
    stuck: bool = False
    stuck_reason: str | None = None


class SlotCheck(BaseModel):
    accepted: dict[str, str] = {}
    unknown: list[str] = []
    # slot id → why its content cannot be used, quoted back to the agent when it is asked again
    rejected: dict[str, str] = {}


class BuilderResponseError(UnusableReply):
    """The agent's answer holds no valid `PlanBuilderResponse`; the builder retries, then halts."""


def parse_builder_response(text: str) -> PlanBuilderResponse:
    """Agents wrap JSON in a ```json fence or in prose; the first object with our keys counts."""
    payload = _response_object(text)
    try:
        return PlanBuilderResponse.model_validate(payload)
    except ValidationError as exc:
        message = f"the builder's JSON does not fit the schema: {schema_problems(exc)}"
        raise BuilderResponseError(message) from None


def response_schema(slot_ids: Collection[str]) -> dict[str, Any]:
    """The JSON schema of an answer filling `slot_ids`, sent to agents that constrain output:
    every asked slot a non-trivial string, so a constrained model cannot leave one out."""
    text = {"type": "string", "minLength": MIN_SLOT_CHARS}
    return {
        "type": "object",
        "properties": {
            "slots": {
                "type": "object",
                "properties": {slot_id: text for slot_id in slot_ids},
                "required": list(slot_ids),
                "additionalProperties": False,
            },
            "stuck": {"type": "boolean"},
            "stuck_reason": {"type": "string"},
        },
        "required": ["slots", "stuck"],
    }


def check_slots(response: PlanBuilderResponse, known_slot_ids: Collection[str]) -> SlotCheck:
    """Sort the answer's slots into accepted, unknown and rejected (with why)."""
    check = SlotCheck()
    for slot_id, content in response.slots.items():
        if slot_id not in known_slot_ids:
            check.unknown.append(slot_id)
        elif (reason := unfilled_reason(content)) is not None:
            check.rejected[slot_id] = reason
        else:
            check.accepted[slot_id] = content
    return check


def _response_object(text: str) -> dict[str, Any]:
    for candidate in json_objects(text):
        if _RESPONSE_KEYS & candidate.keys():
            return candidate
    raise BuilderResponseError(
        "the builder's answer holds no JSON object with a 'slots' or 'stuck' field"
    )
