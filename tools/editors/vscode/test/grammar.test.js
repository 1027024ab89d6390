// Tokenizes .gstack text with the TextMate grammar exactly as VS Code does (vscode-textmate on the
// Oniguruma regex engine, both from npm: `npm install` in tools/editors/vscode) and checks the scopes of the tokens
// that matter. Run: node --test tools/editors/vscode/test/  (or through ctest as editors.tmgrammar_tokens).
// Exits 77 (ctest: skipped) when the npm packages are not installed.
"use strict";
if (Number(process.versions.node.split(".")[0]) < 18) {
  console.log("skipped: node:test needs Node.js 18 or later");
  process.exit(77);
}
const fs = require("fs");
const path = require("path");

const here = __dirname;
const repo = path.resolve(here, "../../../..");  // tools/editors/vscode/test -> the repository root
let vsctm, oniguruma;
try {
  vsctm = require("vscode-textmate");
  oniguruma = require("vscode-oniguruma");
} catch (e) {
  console.log("skipped: vscode-textmate and vscode-oniguruma are not installed (run `npm install` in tools/editors/vscode)");
  process.exit(77);
}
const test = require("node:test");
const assert = require("node:assert");

async function loadGrammar() {
  const wasm = fs.readFileSync(require.resolve("vscode-oniguruma/release/onig.wasm")).buffer;
  await oniguruma.loadWASM(wasm);
  const registry = new vsctm.Registry({
    onigLib: Promise.resolve({
      createOnigScanner: (sources) => new oniguruma.OnigScanner(sources),
      createOnigString: (s) => new oniguruma.OnigString(s),
    }),
    loadGrammar: async (scopeName) => {
      if (scopeName !== "source.gstack") return null;
      const file = path.join(here, "../syntaxes/gstack.tmLanguage.json");
      return vsctm.parseRawGrammar(fs.readFileSync(file, "utf8"), file);
    },
  });
  return registry.loadGrammar("source.gstack");
}

// Each line as a list of {text, scopes}.
function tokenize(grammar, text) {
  let stack = vsctm.INITIAL;
  return text.split("\n").map((line) => {
    const r = grammar.tokenizeLine(line, stack);
    stack = r.ruleStack;
    return r.tokens.map((t) => ({ text: line.slice(t.startIndex, t.endIndex), scopes: t.scopes }));
  });
}

// The innermost scope of the first token on `line` whose text is `text`.
function scopeOf(lines, line, text) {
  const t = lines[line].find((t) => t.text === text);
  assert.ok(t, `no token '${text}' on line ${line}: ${JSON.stringify(lines[line].map((t) => t.text))}`);
  return t.scopes[t.scopes.length - 1];
}

const sample = [
  "/// A doc line.",                                                                  // 0
  "system economics \"Money\"",                                                      // 1
  "use training, thermal # why",                                                     // 2
  "var econ.power.price_kwh : USD/(kW*h) \"Tariff, see table #3\" ref eia assume positive, range(0, 1)", // 3
  "const physics.speed_of_light = 299792458 m/s \"Speed of light\" ref codata2018", // 4
  "eq cost: econ.cost = econ.power.price_kwh * 3600 [s] * exp(-x.y) // a comment",   // 5
  "variant flops_dense [dense]: training.flops = arch.flops.step_dense",            // 6
  "eq bubble: par.pp.bubble = piecewise {",                                          // 7
  "        0 if par.pp == 1;",                                                       // 8
  "        (par.pp - 1) / par.pp otherwise }",                                       // 9
  "stochastic ttf: reliability.ttf ~ exponential(reliability.rate) mean 1 / reliability.rate", // 10
  "approx clock when physical.eq.elmore_delay <= 1e-9: physical.clock = 1 / physical.eq.elmore_delay", // 11
  "unit J = kg*m^2/s^2 \"joule\"",                                                   // 12
  "ref codata2018 \"CODATA 2018\" kind standard url \"https://physics.nist.gov/\" year 2019", // 13
].join("\n");

test("scopes of a sample covering every construct", async () => {
  const lines = tokenize(await loadGrammar(), sample);
  const expect = [
    [0, "/// A doc line.", "comment.line.documentation.gstack"],
    [1, "system", "keyword.other.system.gstack"],
    [1, "economics", "entity.name.namespace.gstack"],
    [1, "\"", "string.quoted.double.gstack"],
    [2, "use", "keyword.other.use.gstack"],
    [2, "training", "entity.name.namespace.gstack"],
    [2, "thermal", "entity.name.namespace.gstack"],
    [2, "# why", "comment.line.number-sign.gstack"],
    [3, "var", "storage.type.var.gstack"],
    [3, "econ.power.price_kwh", "variable.other.declaration.gstack"],
    [3, "USD/(kW*h)", "entity.name.type.unit.gstack"],
    [3, "Tariff, see table #3", "string.quoted.double.gstack"],
    [3, "ref", "keyword.other.gstack"],
    [3, "assume", "keyword.other.gstack"],
    [3, "positive", "support.constant.assumption.gstack"],
    [3, "range", "support.constant.assumption.gstack"],
    [4, "const", "storage.type.const.gstack"],
    [4, "physics.speed_of_light", "variable.other.constant.declaration.gstack"],
    [4, "299792458", "constant.numeric.gstack"],
    [4, "m/s", "entity.name.type.unit.gstack"],
    [5, "eq", "storage.type.relation.gstack"],
    [5, "cost", "entity.name.function.relation.gstack"],
    [5, "econ.power.price_kwh", "variable.other.gstack"],
    [5, "3600", "constant.numeric.gstack"],
    [5, "s", "entity.name.type.unit.gstack"],
    [5, "exp", "support.function.builtin.gstack"],
    [5, "x.y", "variable.other.gstack"],
    [5, "// a comment", "comment.line.double-slash.gstack"],
    [6, "variant", "storage.type.relation.gstack"],
    [6, "dense", "entity.name.tag.variant-key.gstack"],
    [7, "piecewise", "keyword.control.gstack"],
    [8, "if", "keyword.control.gstack"],
    [8, "==", "keyword.operator.comparison.gstack"],
    [9, "otherwise", "keyword.control.gstack"],
    [10, "~", "keyword.operator.distributed.gstack"],
    [10, "exponential", "support.function.distribution.gstack"],
    [10, "mean", "keyword.control.gstack"],
    [11, "when", "keyword.control.gstack"],
    [11, "physical.eq.elmore_delay", "variable.other.gstack"],  // a keyword inside a dotted name is not one
    [11, "1e-9", "constant.numeric.gstack"],
    [12, "unit", "storage.type.unit.gstack"],
    [12, "J", "entity.name.type.unit.gstack"],
    [13, "codata2018", "entity.name.label.reference.gstack"],
    [13, "kind", "keyword.other.gstack"],
    [13, "year", "keyword.other.gstack"],
  ];
  for (const [line, text, scope] of expect) assert.strictEqual(scopeOf(lines, line, text), scope, `line ${line} '${text}'`);
  // The URL's '//' stays inside its string.
  assert.ok(!lines[13].some((t) => t.scopes.some((s) => s.startsWith("comment"))), "no comment in a string's URL");
});

test("every declaration of the shipped model is highlighted as one", async () => {
  const grammar = await loadGrammar();
  const dir = path.join(repo, "model");
  let vars = 0, relations = 0;
  for (const file of fs.readdirSync(dir).filter((f) => f.endsWith(".gstack"))) {
    const text = fs.readFileSync(path.join(dir, file), "utf8");
    const lines = tokenize(grammar, text);
    text.split("\n").forEach((line, i) => {
      let m = /^(var|const) ([A-Za-z_][A-Za-z0-9_.]*)/.exec(line);
      if (m) {
        vars++;
        assert.match(scopeOf(lines, i, m[2]), /^variable\.other\.(constant\.)?declaration\.gstack$/, `${file}:${i + 1}`);
      }
      m = /^(eq|variant|approx|constraint|iterate|ode|stochastic) ([A-Za-z_][A-Za-z0-9_]*)/.exec(line);
      if (m) {
        relations++;
        assert.strictEqual(scopeOf(lines, i, m[2]), "entity.name.function.relation.gstack", `${file}:${i + 1}`);
      }
    });
  }
  // The shipped model has about 1,600 variables and 1,200 relations (gstackc check model).
  assert.ok(vars > 1000 && relations > 1000, `found ${vars} declarations and ${relations} relations`);
});
