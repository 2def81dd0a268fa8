"""Building prompts and reading replies: prompt files, context-window fitting, conversations,
JSON extraction, the `## Section` structure of Markdown replies, and escaping agent text for
the Markdown documents it lands in.

Pure text handling; it imports the shared vocabulary and `core` (for the chat message model) only.
"""

from thoughtforge.prompting.context_window import (
    CHARS_PER_TOKEN,
    Fitted,
    estimate_tokens,
    keep_recent,
    truncate_text,
)
from thoughtforge.prompting.conversation import Conversation, fit_conversation, turn_text
from thoughtforge.prompting.json_extraction import json_objects
from thoughtforge.prompting.library import DEFAULT_DIRECTORY, PromptLibrary, fill
from thoughtforge.prompting.markdown_escaping import escape_inline, escape_untrusted
from thoughtforge.prompting.markdown_sections import (
    SectionedText,
    heading_key,
    list_items,
    with_known_headings,
)

__all__ = [
    "CHARS_PER_TOKEN",
    "DEFAULT_DIRECTORY",
    "Conversation",
    "Fitted",
    "PromptLibrary",
    "SectionedText",
    "escape_inline",
    "escape_untrusted",
    "estimate_tokens",
    "fill",
    "fit_conversation",
    "heading_key",
    "json_objects",
    "keep_recent",
    "list_items",
    "truncate_text",
    "turn_text",
    "with_known_headings",
]
