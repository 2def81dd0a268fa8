"""What a real small model does with ThoughtForge: SmolLM2-135M-Instruct behind llama.cpp's
OpenAI-compatible server runs `examples/wedding-plan.md` with `--auto-confirm` through the HTTP
agent, once with structured output (JSON schemas in llama.cpp's form, a grammar for the Markdown
steps) and once without. Per step: first asks, the first-ask usable rate, re-asks, answers whose
JSON did not read, cut-off answers, seconds per call; then short excerpts of what it wrote.

Needs `.ci/install-llama-server` (nothing is installed here). Takes 10 to 20 minutes on 2 cores.

Run: .venv/bin/python -m bench.bench_real_model [OUTPUT.md]   (from the repository root)
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

from tests.real_model import figures_table, llama_server, run_wedding, skip_reason, step_figures

EXCERPT_CHARS = 400


def main() -> int:
    reason = skip_reason()
    if reason:
        print(f"skipped: {reason}")
        return 0
    report: list[str] = ["# SmolLM2-135M-Instruct on examples/wedding-plan.md\n"]
    with tempfile.TemporaryDirectory(prefix="tf-bench-real-") as folder:
        root = Path(folder)
        with llama_server(root / "server.log") as url:
            for structured in (True, False):
                label = "structured output on" if structured else "structured output off"
                run = run_wedding(root / label.replace(" ", "-"), url, structured)
                ending = f"{run.phase.value}" + (f" ({run.halt_reason})" if run.halt_reason else "")
                report += [
                    f"## {label}: {ending} in {run.seconds:.0f} s\n",
                    figures_table(step_figures(run.project_dir)),
                    "",
                    *_excerpts(run.project_dir),
                ]
                print("\n".join(report[-4:]), flush=True)
    text = "\n".join(report) + "\n"
    if len(sys.argv) > 1:
        Path(sys.argv[1]).write_text(text, encoding="utf-8")
    print(text)
    return 0


def _excerpts(project_dir: Path) -> list[str]:
    """The start of each document it wrote, and of each answer that was refused."""
    shown = [*sorted((project_dir / "docs").glob("*.md")), project_dir / "review.json"]
    shown += sorted((project_dir / "rejected").glob("*.txt"))[:3]
    lines: list[str] = []
    for path in shown:
        if path.is_file():
            text = path.read_text(encoding="utf-8", errors="replace")[:EXCERPT_CHARS]
            lines += [f"`{path.relative_to(project_dir)}`:", "```text", text.rstrip(), "```", ""]
    return lines


if __name__ == "__main__":
    sys.exit(main())
