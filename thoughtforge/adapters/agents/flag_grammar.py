"""How an agent CLI's own parser reads its flags, so a grant is found however it is spelled:
commander's `--opt=value`, `-rVALUE` and combined short flags (Claude Code), clap's
`-sdanger-full-access` (Codex), yargs' `--approvalMode=yolo`, `-dy` and `--no-…` (Gemini CLI).
Each CLI's `Grammar` (its spellings, which options take a value, which grant and by what) lives
in its kind module (`kinds`); `switches` asks them all.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

Judge = Callable[[str], bool]
"""Whether an option's value grants (for a boolean option: its "true"/"false", or "")."""


@dataclass(frozen=True)
class Grammar:
    """One CLI's options: spellings to one name, which take a value, and which grant (by what)."""

    names: dict[str, str]
    """Every spelling (`-s`, `--sandbox`) to the option's name."""
    valued: frozenset[str]
    """Names of options that take a value (the next word, `=value`, or the rest of `-sVALUE`)."""
    grants: dict[str, Judge]
    camel: bool = False
    """yargs: `--approvalMode` is `--approval-mode`, `--no-yolo` is `--yolo false`."""
    booleans_take_words: bool = False
    """yargs: a boolean option takes a following `true` or `false`."""

    def name_of(self, spelling: str) -> str | None:
        if spelling in self.names:
            return self.names[spelling]
        if self.camel and spelling.startswith("--"):
            kebab = "--" + re.sub(r"(?<=[a-z0-9])([A-Z])", r"-\1", spelling[2:]).lower()
            return self.names.get(kebab)
        return None


def always(value: str) -> bool:
    return True


def unless_false(value: str) -> bool:
    return value.lower() not in ("false", "0", "no")


def granting(grammar: Grammar, flags: Sequence[str]) -> list[str]:
    """Each granting option of `flags` as `NAME VALUE`, read in `grammar`."""
    found: list[str] = []
    for name, value, spelled in _options(grammar, flags):
        judge = grammar.grants.get(name)
        if judge is not None and judge(value):
            found.append(f"{spelled} {value}" if value not in ("", "true") else spelled)
    return found


def _options(grammar: Grammar, flags: Sequence[str]) -> list[tuple[str, str, str]]:
    """`(name, value, as spelled)` for every option `flags` sets; words that are no option of
    this grammar are skipped."""
    out: list[tuple[str, str, str]] = []
    index = 0
    while index < len(flags):
        word = flags[index]
        index += 1
        if word == "--":
            break
        if word.startswith("--"):
            spelling, equals, attached = word.partition("=")
            negated = grammar.camel and spelling.startswith("--no-")
            name = grammar.name_of("--" + spelling[5:] if negated else spelling)
            if name is None:
                continue
            if negated:
                out.append((name, "false", word))
            elif equals:
                out.append((name, attached, spelling))
            elif name in grammar.valued:
                value = _value_at(flags, index)
                index += value is not None
                out.append((name, value or "", spelling))
            elif (
                grammar.booleans_take_words
                and index < len(flags)
                and flags[index] in ("true", "false")
            ):
                out.append((name, flags[index], spelling))
                index += 1
            else:
                out.append((name, "", spelling))
        elif word.startswith("-") and len(word) > 1:
            index = _short_cluster(grammar, word, flags, index, out)
    return out


def _short_cluster(
    grammar: Grammar,
    word: str,
    flags: Sequence[str],
    index: int,
    out: list[tuple[str, str, str]],
) -> int:
    """`-abc`: each letter an option, until one that takes a value, which takes the rest
    (`-sdanger-full-access`, `-s=x`) or the next word; returns the next word's index."""
    letters = word[1:]
    for at, letter in enumerate(letters):
        name = grammar.name_of(f"-{letter}")
        if name is None:
            return index  # not this CLI's: the rest cannot be read as its options
        if name in grammar.valued:
            rest = letters[at + 1 :].removeprefix("=")
            if rest:
                out.append((name, rest, f"-{letter}"))
                return index
            value = _value_at(flags, index)
            out.append((name, value or "", f"-{letter}"))
            return index + (value is not None)
        out.append((name, "", f"-{letter}"))
    return index


def _value_at(flags: Sequence[str], index: int) -> str | None:
    """The word at `index` as an option's value; None past the end, or when it is itself an
    option (read as one, a grant behind it is seen whichever way the CLI reads it)."""
    if index >= len(flags) or (flags[index].startswith("-") and len(flags[index]) > 1):
        return None
    return flags[index]
