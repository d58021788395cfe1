// The expected results of resources/testdata/pi_cases.json, from pi 1.6.0's own functions.
// Run from a directory where @earendil-works/pi-coding-agent@1.6.0 is installed (npm i
// --ignore-scripts, outside the repository): node gen_pi_cases.mjs > pi_cases.json
import { parseCommandArgs, substituteArgs, expandPromptTemplate } from "./node_modules/@earendil-works/pi-coding-agent/dist/core/prompt-templates.js";
const argCases = [
  "", "a b c", "  a   b  ", `"API compatibility"`, `'single quoted'`, `doesn't stay`, `"unclosed quote`, `a "unclosed`,
  `"the \\"fast\\" path"`, `'it\\'s'`, `"a\\b"`, `"" x ''`, `"a"b`, `"a"'b'`, `a"b"`, `x\ty\nz`, `a\u00a0b`, `a\u0085b`, `"`, `'`, `" `, `a 'b c' "d e"`, `"a" "b`, `\\"x\\"`,
];
const args = {};
for (const c of argCases) args[c] = parseCommandArgs(c);
const subCases = [
  ["Review $1 and $2", ["x"]],
  ["All: $@ / $ARGUMENTS", ["a", "b c"]],
  ["${1:-correctness}", []],
  ["${1:-correctness}", [""]],
  ["${1:-correctness}", ["speed"]],
  ["${@:-nothing}", []],
  ["${ARGUMENTS:-nothing}", ["a", "b"]],
  ["${@:2}", ["a", "b", "c"]],
  ["${@:2:1}", ["a", "b", "c"]],
  ["${@:0}", ["a", "b"]],
  ["${@:5}", ["a", "b"]],
  ["${@:1:0}", ["a", "b"]],
  ["${@:2:99}", ["a", "b", "c"]],
  ["$0 $3 $10", ["a"]],
  ["$1$1 $11", ["a","b","c","d","e","f","g","h","i","j","k"]],
  ["no recursion: $1", ["$2", "x"]],
  ["default ${2:-$1}", ["a"]],
  ["$ARGUMENTSX $@@", ["a"]],
  ["${1:-}", []],
  ["${x} $ {1} $", ["a"]],
  ["${99999999999999999999:-big}", ["a"]],
  ["${@:99999999999999999999}", ["a"]],
  ["${@:1:99999999999999999999}", ["a", "b"]],
];
const subs = subCases.map(([t, a]) => ({ template: t, args: a, want: substituteArgs(t, a) }));
const templates = [
  { name: "review", content: "Review: ${1:-everything} [$@]" },
  { name: "a.b", content: "dotted $1" },
];
const expandCases = ["/review", "/review focus", "/review  \"two words\" x", "/review\tfocus", "/review\n\nnext line", "/reviewx", "/", "/ review", "review", " /review", "/a.b c", "/review\u00a0nbsp"];
const expand = expandCases.map((input) => ({ input, want: expandPromptTemplate(input, templates) }));
console.log(JSON.stringify({ args: Object.entries(args).map(([input, want]) => ({ input, want })), substitute: subs, templates, expand }, null, 1));
