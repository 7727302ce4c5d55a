#!/usr/bin/env python3
"""The manual pages say what the daemon says: animd(8)'s OPTIONS and
animd.conf(5)'s KEYS, rendered by man from what scripts/make-man makes of
$ANIMD_BIN, list exactly the options of `animd --help`, in its order, with
its argument names and descriptions word for word (the keys are the options
but --config, with _ for -); animd(8) carries `animd eval --help` and
`animd test --help`, and both pages the version. Needs scdoc and man
(skipped otherwise)."""
import os
import re
import shutil
import subprocess
import sys
import tempfile

ANIMD = os.environ["ANIMD_BIN"]
ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))

for tool in ("scdoc", "man"):
    if shutil.which(tool) is None:
        print(f"needs {tool} (Debian packages scdoc and man-db: make deps-test)")
        sys.exit(77)


def run(args, **kw):
    return subprocess.run(args, check=True, capture_output=True, text=True,
                          timeout=60, **kw).stdout


def help_options(text):
    """(flag, argument, description) of each option line of --help, read
    on its own terms: '  --flag [ARG]  words', deeper lines continuing."""
    lines = text.split("\n")
    start = next(i for i, l in enumerate(lines) if l.startswith("Options"))
    opts = []
    for line in lines[start + 1:]:
        if not line.strip():
            break
        m = re.match(r"^  (--[a-z][a-z0-9-]*)(?:[ =]([A-Z][A-Z0-9_|.]*)|(\[=[A-Z]+\]))?"
                     r"(?: +(.*))?$", line)
        if m:
            opts.append([m.group(1), m.group(2) or m.group(3) or "", m.group(4) or ""])
        elif line.startswith("   ") and opts:
            opts[-1][2] += " " + line.strip()
        else:
            raise AssertionError(f"--help line neither option nor continuation: {line!r}")
    return [(f, a, " ".join(d.split())) for f, a, d in opts]


def section(page, name):
    """The lines of one section of a rendered page (between its heading and
    the next heading, headings being lines that start without a space)."""
    lines = page.split("\n")
    start = lines.index(name)
    end = next(i for i in range(start + 1, len(lines))
               if lines[i] and not lines[i].startswith(" "))
    return lines[start + 1:end]


def entries(lines):
    """Term lines (7 spaces) with their description lines (11 spaces)."""
    out = []
    for line in lines:
        if re.match(r"^ {7}\S", line):
            out.append([line.strip(), ""])
        elif re.match(r"^ {11}\S", line) and out:
            out[-1][1] = (out[-1][1] + " " + line.strip()).strip()
    return out


tmp = tempfile.mkdtemp(prefix="animd-man.")
try:
    pages = {}
    for src, out in (("animd.8.scd", "animd.8"), ("animd.conf.5.scd", "animd.conf.5")):
        run([os.path.join(ROOT, "scripts", "make-man"), ANIMD,
             os.path.join(ROOT, "man", src), os.path.join(tmp, out)])
        # Wide enough that no description wraps, in plain ASCII.
        env = dict(os.environ, LC_ALL="C", MANWIDTH="2000")
        res = subprocess.run(["man", "--warnings", "-l", os.path.join(tmp, out)],
                             capture_output=True, text=True, timeout=60, env=env)
        assert res.returncode == 0, res.stderr
        assert res.stderr == "", f"man warns on {out}: {res.stderr}"
        pages[out] = res.stdout
finally:
    shutil.rmtree(tmp)

opts = help_options(run([ANIMD, "--help"]))
assert len(opts) >= 40, f"only {len(opts)} options in --help"
assert ("--listen" in [o[0] for o in opts]) and ("--config" in [o[0] for o in opts])

# animd(8): the introduction paragraph of OPTIONS has no term line.
man_opts = []
for term, desc in entries(section(pages["animd.8"], "OPTIONS")):
    flag, _, arg = term.partition(" ")
    if "[=" in flag:  # a switch: --demo[=BOOL]
        flag, arg = flag[:flag.index("[=")], flag[flag.index("[="):]
    man_opts.append((flag, arg, desc))
man_opts = [o for o in man_opts if o[0].startswith("--")]
for want, got in zip(opts, man_opts):
    assert want == got, f"animd(8) has {got}, --help {want}"
assert len(man_opts) == len(opts), f"animd(8) lists {len(man_opts)} options, --help {len(opts)}"

# animd.conf(5): key = ARG (true|false for a switch), the same words.
keys = [(f[2:].replace("-", "_"), "true|false" if not a or a.startswith("[=") else a, d)
        for f, a, d in opts if f != "--config"]
man_keys = []
for term, desc in entries(section(pages["animd.conf.5"], "KEYS")):
    key, sep, arg = term.partition(" = ")
    assert sep, f"animd.conf(5) KEYS term without '=': {term!r}"
    man_keys.append((key, arg, desc))
for want, got in zip(keys, man_keys):
    assert want == got, f"animd.conf(5) has {got}, --help {want}"
assert len(man_keys) == len(keys), f"animd.conf(5) lists {len(man_keys)} keys, --help {len(keys)}"

# The offline commands' own --help, and the version.
for cmd in ("eval", "test"):
    first = run([ANIMD, cmd, "--help"]).split("\n")[0].strip()
    assert first in pages["animd.8"], f"animd(8) lacks `animd {cmd} --help` ({first!r})"
version = run([ANIMD, "--version"]).split()[1]
for name, page in pages.items():
    assert f"animd {version}" in page, f"{name} gives no version {version}"
print(f"ok: {len(opts)} options in animd(8), {len(keys)} keys in animd.conf(5), equal to --help")
