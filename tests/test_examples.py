"""Every documented ``kg`` example runs (issue 48, item 5): the examples of ``kg --help``
and of every ``kg COMMAND [SUBCOMMAND] --help``, of README.md and of docs/*.md, collected
from the texts themselves, never from a copy of them.

What is collected:

- help: the lines of each help text's ``Example:`` block (click's ``\\b`` paragraph),
  walking the command tree of :data:`kg.cli.main`;
- README.md and docs/*.md: the lines of code blocks (indented by four spaces, or fenced
  with no language or a shell's) that start with ``kg `` or ``$ kg ``, after
  ``NAME=value`` environment variables (an ``export NAME=value`` line earlier in the
  same block counts too, and is shown in the example).

Only ``kg`` command lines are in scope: ``pip``, ``curl``, ``python3 -m kg.reproduce``,
shell loops and Python blocks are not. A line ending in ``\\`` goes on with the next; a
``# comment`` and, in a table of commands, the description after two spaces are cut off;
``kg a, kg b`` is two commands. A ``|`` reads as a placeholder's alternatives (``ttl|nt``),
so a line with a pipe would be checked as a synopsis, not run: no example has one.

Each line is one of two things:

- a **synopsis**, where a token is a placeholder (``ID``, ``PATH...``, ``[--brief]``,
  ``ttl|nt``): its command must exist and every option it names must be an option of that
  command (:func:`test_synopsis_names_real_options`);
- an **example**, every other line: it runs in this process (Click's runner) in a
  directory holding a copy of the bundled ``data/``, loaded into ``.kg/store`` with two
  releases in ``.kg/store-archive`` (the default settings), restored before each example,
  so that what an example writes (a release, a standing file, a review, an export) never
  reaches the checkout or the next example. It must exit 0 (or the code
  :data:`FAILS` documents) with no traceback (:func:`test_example_runs`).

A release id is a hash of the content, so no id written in a text stays real past the next
change of the data or the mapping: the fixture releases the bundled data on the dates the
examples name (:data:`RELEASE_DATES`), and each example runs with the real id of its date
in place of the one it prints.

The examples that cannot run here are in :data:`NOT_RUN`, by their text (or its start),
each with the reason; their arguments are still parsed by their command (options, choices,
required values) and their command's ``--help`` runs (:func:`test_not_run`). Every
command's ``--help`` runs too (:func:`test_help`).
"""

from __future__ import annotations

import re
import shlex
import shutil
from dataclasses import dataclass
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from helpers import DATA, ROOT, SEED_ID
from kg.cli import main
from kg.config import SETTINGS

DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]

#: Examples that cannot run in a test, by their text or its start: why not.
NOT_RUN = {
    "kg serve": "a server that runs until it is stopped (tests/test_serving.py serves for real)",
    "KG_STORE=http://store.internal:7878 kg": "a remote store on the reader's own network",
    "kg reproduce": "a GPU and minutes of training (tests/test_reproduce.py runs the recipe "
    "on the CPU)",
    f"kg verify {SEED_ID} --pdf paper.pdf": "the reader's own PDF of the source",
    "kg verify --all --pdf-dir pdfs/": "the reader's own folder of PDFs",
    "kg verify eee-helm-lite-openai-gpt-4o-2024-08-06-29a3345a-gsm8k --json copy.json": (
        "the reader's own copy of the upstream file"
    ),
    "kg import every-eval-ever every-eval-ever-d9be34d6.tar.gz": (
        "the whole upstream snapshot in the current directory: 35,043 results, minutes "
        "(tests/test_import_snapshot.py imports it)"
    ),
    "kg import every-eval-ever ../shared/datasets/every-eval-ever/": (
        "the whole upstream snapshot: 35,043 results, minutes "
        "(tests/test_import_snapshot.py imports it)"
    ),
    "kg import every-eval-ever ~/src/every_eval_ever/": (
        "the reader's own clone of the upstream repository"
    ),
}

#: Examples documented to fail, with the exit code they document (none today).
FAILS: dict[str, int] = {}

#: The releases the fixture makes, by date: the bundled data before the runs of the
#: precision sweep (made on 2026-12-01 in the evening), then all of it.
RELEASE_DATES = ("2026-12-01", "2026-12-08")
SWEEP_RUNS = "nt-peak-memory-20261201t*.yaml"
RELEASE_ID = re.compile(r"\b(\d{4}-\d{2}-\d{2})-[0-9a-f]{12}\b")


@dataclass(frozen=True)
class Example:
    """One documented ``kg`` command line."""

    origin: str  # "README.md", "docs/imports.md", "kg export --help"
    text: str  # as documented: environment first, continuation lines joined
    env: tuple[tuple[str, str], ...] = ()

    @property
    def args(self) -> list[str]:
        """The arguments after ``kg``."""
        words = shlex.split(self.text, comments=True)
        while "=" in words[0]:
            words.pop(0)
        assert words[0] == "kg", self.text
        return words[1:]

    @property
    def synopsis(self) -> bool:
        """True where a word is a placeholder, not a value (``ID``, ``[--brief]``)."""
        return any(placeholder(word) for word in shlex.split(self.text, posix=False))

    @property
    def id(self) -> str:
        return f"{self.origin}: {self.text}"


def placeholder(word: str) -> bool:
    if word[0] in "'\"":
        return False
    return (
        word == "..."
        or "[" in word
        or "]" in word
        or "|" in word
        or re.fullmatch(r"[A-Z][A-Z0-9_]*(\.\.\.)?", word.rstrip(",")) is not None
    )


def cut_description(line: str) -> str:
    """``line`` up to the first two spaces outside quotes (a table's second column)."""
    quote = ""
    for i, char in enumerate(line):
        if quote:
            quote = "" if char == quote else quote
        elif char in "'\"":
            quote = char
        elif line.startswith("  ", i):
            return line[:i]
    return line


def command_lines(lines: list[str], origin: str) -> list[Example]:
    """The ``kg`` commands among the lines of one code block."""
    joined: list[str] = []
    for line in lines:
        if joined and joined[-1].endswith("\\"):
            joined[-1] = joined[-1][:-1].rstrip() + " " + line.strip()
        else:
            joined.append(line.strip())
    found = []
    exported: list[tuple[str, str]] = []
    for line in joined:
        line = line.removeprefix("$ ")
        if match := re.fullmatch(r"export (KG_\w+)=(\S+)(\s+#.*)?", line):
            exported.append((match[1], match[2]))
            continue
        for part in re.split(r",\s+(?=kg )", line):
            env = dict(exported)
            text = cut_description(part).rstrip(",")
            words = text.split()
            while words and re.fullmatch(r"[A-Z_]+=\S*", words[0]):
                name, _, value = words.pop(0).partition("=")
                env[name] = value
            if words[:1] != ["kg"]:
                break  # prose ("what kg releases, kg history and ...")
            shown = " ".join(f"{k}={v}" for k, v in env.items())
            found.append(Example(origin, f"{shown} {' '.join(words)}".strip(), tuple(env.items())))
    return found


def help_examples() -> list[Example]:
    found = []
    for path, text in HELP.items():
        lines = text.splitlines()
        for i, line in enumerate(lines):
            if line.strip() in ("Example:", "Examples:"):
                block = []
                for following in lines[i + 1 :]:
                    if not following.strip():
                        break
                    block.append(following)
                found += command_lines(block, " ".join(["kg", *path, "--help"]))
    return found


def doc_examples() -> list[Example]:
    found = []
    for doc in DOCS:
        origin = str(doc.relative_to(ROOT))
        block: list[str] = []
        fence: str | None = None  # the fenced block's language, while in one
        previous = ""
        for line in [*doc.read_text().splitlines(), ""]:
            if fence is not None:
                if line.startswith("```"):
                    if fence in ("", "sh", "bash", "shell", "console"):
                        found += command_lines(block, origin)
                    fence, block = None, []
                else:
                    block.append(line)
            elif line.startswith("```"):
                fence = line[3:].strip()
            elif (block or not previous.strip()) and (line.startswith("    ") or not line.strip()):
                block.append(line)  # an indented block begins after an empty line
            else:
                found += command_lines(block, origin)
                block = []
            previous = line
    return found


def help_texts() -> dict[tuple[str, ...], str]:
    """The help text of every command of ``kg``, by its path of names (``()``: ``kg``)."""
    texts = {}

    def walk(path: tuple[str, ...], command: click.Command, ctx: click.Context) -> None:
        texts[path] = command.get_help(ctx)
        if isinstance(command, click.Group):  # as click lists them: a group may make its own
            for name in sorted(command.list_commands(ctx)):
                sub = command.get_command(ctx, name)
                assert sub is not None, name
                walk((*path, name), sub, click.Context(sub, info_name=name, parent=ctx))

    walk((), main, click.Context(main, info_name="kg"))
    return texts


def resolve(words: list[str]) -> tuple[tuple[str, ...], click.Command, list[str]]:
    """The command ``words`` name, its path, and the words after it."""
    command: click.Command = main
    path: tuple[str, ...] = ()
    ctx = click.Context(main, info_name="kg")
    while isinstance(command, click.Group) and words:
        sub = command.get_command(ctx, words[0])
        if sub is None:
            break
        path += (words.pop(0),)
        command, ctx = sub, click.Context(sub, info_name=path[-1], parent=ctx)
    return path, command, words


HELP = help_texts()
EXAMPLES = list(dict.fromkeys(help_examples() + doc_examples()))  # each once per origin
RUN = [e for e in EXAMPLES if not e.synopsis and not any(e.text.startswith(k) for k in NOT_RUN)]
SYNOPSES = [e for e in EXAMPLES if e.synopsis]


def test_examples_are_collected() -> None:
    """The collection finds the examples where they are (a broken collector finds none)."""
    origins = {e.origin for e in EXAMPLES}
    assert {"README.md", "docs/imports.md", "kg export --help", "kg query --help"} <= origins
    assert len(RUN) >= 25 and len(SYNOPSES) >= 25


@pytest.fixture(scope="module")
def registry(tmp_path_factory) -> tuple[Path, Path, dict[str, str]]:
    """A directory with a copy of data/ loaded into ``.kg/store`` and released on each of
    :data:`RELEASE_DATES`; a pristine copy of it; the release ids by date. The store's
    manifest names its files by absolute path, so examples run in that directory itself,
    restored from the copy."""
    root = tmp_path_factory.mktemp("examples")
    work, pristine, aside = root / "work", root / "pristine", root / "aside"
    shutil.copytree(DATA, work / "data")
    aside.mkdir()
    for run in (work / "data" / "runs").glob(SWEEP_RUNS):
        run.rename(aside / run.name)
    store = ["--store", str(work / ".kg" / "store"), "--data", str(work / "data")]
    runner = CliRunner()

    def release(date: str) -> str:
        for args in (["load"], ["release", "--date", date]):
            result = runner.invoke(main, [*store, *args])
            assert result.exit_code == 0, result.output
        return result.stdout.strip()

    before, after = RELEASE_DATES
    releases = {before: release(before)}
    for run in aside.iterdir():
        run.rename(work / "data" / "runs" / run.name)
    releases[after] = release(after)
    shutil.copytree(work, pristine, symlinks=True)
    return work, pristine, releases


def with_releases(words: list[str], releases: dict[str, str]) -> list[str]:
    def real(match: re.Match[str]) -> str:
        assert match[1] in releases, f"{match[0]}: the fixture makes no release on {match[1]}"
        return releases[match[1]]

    return [RELEASE_ID.sub(real, word) for word in words]


@pytest.mark.parametrize("example", RUN, ids=lambda e: e.id)
def test_example_runs(example: Example, registry, monkeypatch) -> None:
    work, pristine, releases = registry
    shutil.rmtree(work)
    shutil.copytree(pristine, work, symlinks=True)
    monkeypatch.chdir(work)
    env: dict[str, str | None] = {s.env: None for s in SETTINGS.values()}
    env.update(example.env)
    result = CliRunner().invoke(main, with_releases(example.args, releases), env=env)
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise result.exception
    assert "Traceback" not in result.output
    assert result.exit_code == FAILS.get(example.text, 0), result.output


@pytest.mark.parametrize("example", SYNOPSES, ids=lambda e: e.id)
def test_synopsis_names_real_options(example: Example) -> None:
    path, command, _ = resolve(example.args)
    first = example.args[0]
    assert path or placeholder(first) or first.startswith("-"), f"no command {first!r}"
    ctx = click.Context(command)
    known = {opt for param in command.get_params(ctx) for opt in param.opts + param.secondary_opts}
    named = re.findall(r"(?<![\w-])(--?[a-zA-Z][\w-]*)", example.text)
    assert not set(named) - known, f"kg {' '.join(path)} has no option {set(named) - known}"


@pytest.mark.parametrize("path", HELP, ids=lambda p: " ".join(["kg", *p]))
def test_help(path: tuple[str, ...]) -> None:
    result = CliRunner().invoke(main, [*path, "--help"])
    assert result.exit_code == 0, result.output
    assert result.output.startswith("Usage: ")


@pytest.mark.parametrize("start", NOT_RUN)
def test_not_run(start: str) -> None:
    """Each entry names documented examples; their arguments parse (but for a file of the
    reader's own, which is not here), and their command's ``--help`` runs."""
    named = [e for e in EXAMPLES if e.text.startswith(start) and not e.synopsis]
    assert named, f"NOT_RUN names no example: {start!r}"
    for example in named:
        path, command, words = resolve(example.args)
        parent = click.Context(main, info_name="kg")
        try:
            command.make_context(path[-1], words, parent=parent)
        except click.BadParameter as exc:
            kind = getattr(exc.param, "type", None)
            assert isinstance(kind, click.Path) and kind.exists, exc.format_message()
        result = CliRunner().invoke(main, [*path, "--help"])
        assert result.exit_code == 0, result.output
