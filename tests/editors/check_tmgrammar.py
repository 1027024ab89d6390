#!/usr/bin/env python3
"""Checks the VS Code extension's files without npm: the TextMate grammar and the manifest are valid,
every regex compiles (the grammar keeps to the regex subset Oniguruma and Python's re share), every
include resolves, and the grammar does not drift from the language: each keyword of grammar/GStack.g4's
lexer and each built-in function of image/expr.cpp is highlighted. The tokenizing test proper is
tools/editors/vscode/test/grammar.test.js (vscode-textmate, needs `npm install` in tools/editors/vscode).

    check_tmgrammar.py REPO_ROOT
"""
import json
import os
import re
import sys

root = sys.argv[1]
ext = os.path.join(root, "tools", "editors", "vscode")
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
from tally import check, finish  # noqa: E402


def load(path):
    with open(path, encoding="utf-8") as f:
        return json.load(f)


manifest = load(os.path.join(ext, "package.json"))
grammar_path = os.path.join(ext, manifest["contributes"]["grammars"][0]["path"])
grammar = load(grammar_path)
langconf = load(os.path.join(ext, manifest["contributes"]["languages"][0]["configuration"]))

# ---- the manifest
lang = manifest["contributes"]["languages"][0]
check(lang["id"] == "gstack" and lang["extensions"] == [".gstack"], "package.json: language gstack for *.gstack")
check(manifest["contributes"]["grammars"][0]["scopeName"] == grammar["scopeName"] == "source.gstack",
      "package.json and the grammar agree on scope source.gstack")
check(os.path.isfile(os.path.join(ext, manifest["main"])), "package.json: main (%s) exists" % manifest["main"])
check("onLanguage:gstack" in manifest["activationEvents"], "the extension starts on gstack files")
check(manifest["contributes"]["configuration"]["properties"]["gstack.server.path"]["default"] == "gstack-lsp",
      "gstack.server.path defaults to gstack-lsp")
check(re.compile(langconf["wordPattern"]).fullmatch("econ.cost.per_token") is not None,
      "language-configuration: a dotted name is one word")

# ---- every rule of the grammar
rules, includes, names, regexes = [], [], [], []


def walk(node):
    if isinstance(node, dict):
        for key in ("match", "begin", "end"):
            if key in node:
                regexes.append(node[key])
        if "include" in node:
            includes.append(node["include"])
        if "name" in node and isinstance(node["name"], str):
            names.append(node["name"])
        for v in node.values():
            walk(v)
    elif isinstance(node, list):
        for v in node:
            walk(v)


walk(grammar["patterns"])
walk(grammar["repository"])
bad = []
for rx in regexes:
    try:
        re.compile(rx)
    except re.error as e:
        bad.append("%s: %s" % (rx, e))
check(not bad and len(regexes) > 20, "all %d regexes compile (%s)" % (len(regexes), bad))
repo_keys = set(grammar["repository"])
check(all(i[1:] in repo_keys for i in includes if i.startswith("#")), "every #include names a repository rule")
check(repo_keys <= {i[1:] for i in includes}, "every repository rule is used")
check(all(n.endswith(".gstack") for n in names if n != "gstack"), "every scope name ends in .gstack")

# ---- no drift from the language
lexer_keywords = re.findall(r"^[A-Z_]+\s*:\s*'([a-z]+)'\s*;", open(os.path.join(root, "grammar", "GStack.g4")).read(), re.M)
check(len(lexer_keywords) >= 30, "found the lexer's %d keywords in GStack.g4" % len(lexer_keywords))


def highlighted(word):
    """Whether some rule with a scope matches `word` standing alone in an expression or declaration."""
    for rule in (grammar["repository"]["keywords"]["patterns"] + grammar["repository"]["functions"]["patterns"]
                 + [grammar["repository"]["relation-head"]] + grammar["repository"]["declarations"]["patterns"]):
        rx = rule.get("match") or rule.get("begin")
        for text in (word + " x", word + "(x)"):
            m = re.compile(rx).match(text)
            if m and m.group(0).strip().startswith(word):
                return True
    return False


missing = [k for k in lexer_keywords if not highlighted(k)]
check(not missing, "every keyword of the lexer is highlighted (missing: %s)" % missing)
funcs = re.findall(r'\{"([a-z0-9]+)", \d+, \d+', open(os.path.join(root, "image", "expr.cpp")).read()) + ["ln"]
fn_rule = grammar["repository"]["functions"]["patterns"][0]["match"]
missing = [f for f in funcs if not re.match(fn_rule, f + "(x)")]
check(len(funcs) >= 15 and not missing, "every built-in function of image/expr.cpp is highlighted (missing: %s)" % missing)
check(re.fullmatch(grammar["repository"]["names"]["match"], "physical.eq.elmore_delay") is not None,
      "a dotted name with a keyword inside is one name")

finish()
