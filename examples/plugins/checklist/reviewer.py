"""Phase 4 for a checklist: its review schema. The review and fix steps are ThoughtForge's shared
document steps, over `docs/checklist.md`, with this folder's `checklist-review` and
`checklist-fix` prompts (which say what each severity means for a checklist)."""

from thoughtforge.phases.polish.review import Review as DocumentReview


class Review(DocumentReview):
    """The issues only; a field added here is required of every review the agent writes."""
