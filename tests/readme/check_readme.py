"""The README a newcomer reads in five minutes: at most 10,000 characters, no table cell over 200,
and every path it names exists (links, `code` paths and paths in its commands), in README.md and
docs/README.md (the index). Run by ctest (readme.*):

    python3 check_readme.py SOURCE_DIR

Prints one line per problem, then "N problems" and exits 1; or "README checks passed".
"""
import pathlib
import re
import sys

MAX_CHARS = 10_000
MAX_CELL = 200
# The tracked top-level folders: a word that starts with one of these names a file of the tree.
TOP = ("app", "sim", "models", "platforms", "firmware", "python", "configs", "cmake", "tests",
       "scripts", "docs")
PATH = re.compile(r"^[A-Za-z0-9_.\-/]+$")


def cells(line):
    """The cells of a Markdown table row (`\\|` is a bar inside a cell)."""
    parts = re.split(r"(?<!\\)\|", line.strip())
    return [c.strip() for c in parts[1:-1]]


def named_paths(text):
    """(path, relative_to_file) for every link target, `code` path and path in a code block."""
    for target in re.findall(r"\]\(([^)\s]+)\)", text):
        if not re.match(r"^[a-z]+:", target) and not target.startswith("#"):
            yield target.split("#")[0], True
    words = re.findall(r"`([^`\n]+)`", text)
    for block in re.findall(r"```[a-z]*\n(.*?)```", text, re.S):
        words += block.split()
    for w in words:
        w = w.rstrip(".,:;)")
        if PATH.match(w) and "/" in w and w.split("/")[0] in TOP:
            yield w, False


def problems(root, name, limit_size):
    path = root / name
    text = path.read_text(encoding="utf-8")
    found = []
    if limit_size and len(text) > MAX_CHARS:
        found.append(f"{name}: {len(text)} characters, more than {MAX_CHARS}")
    for number, line in enumerate(text.splitlines(), 1):
        if line.lstrip().startswith("|"):
            for cell in cells(line):
                if len(cell) > MAX_CELL:
                    found.append(f"{name}:{number}: a table cell of {len(cell)} characters "
                                 f"(at most {MAX_CELL}): {cell[:60]}...")
    for target, relative in named_paths(text):
        base = path.parent if relative else root
        if not (base / target).exists():
            found.append(f"{name}: names {target}, which does not exist")
    return found


def main():
    root = pathlib.Path(sys.argv[1])
    found = problems(root, "README.md", True)
    if (root / "docs" / "README.md").exists():
        found += problems(root, "docs/README.md", False)
    for p in found:
        print(p)
    if found:
        print(f"{len(found)} problems")
        return 1
    print("README checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
