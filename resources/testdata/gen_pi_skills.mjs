// The expected results of resources/testdata/pi_skills.json: pi 1.6.0's own loadSkills over
// testdata/skilltree (as a --skill directory). Run from a directory where
// @earendil-works/pi-coding-agent@1.6.0 is installed (npm i --ignore-scripts, outside the
// repository): node gen_pi_skills.mjs TREE > pi_skills.json
import { relative } from "node:path";
import { loadSkills } from "./node_modules/@earendil-works/pi-coding-agent/dist/core/skills.js";
const tree = process.argv[2];
const { skills, diagnostics } = loadSkills({ cwd: tree, agentDir: "/nonexistent-agent-dir", skillPaths: [tree], includeDefaults: false });
const rel = (p) => relative(tree, p);
const out = {
  skills: skills.map((s) => ({ name: s.name, description: s.description, file: rel(s.filePath), baseDir: rel(s.baseDir), disableModelInvocation: s.disableModelInvocation })).sort((a, b) => (a.file < b.file ? -1 : 1)),
  diagnostics: diagnostics.map((d) => ({ type: d.type, file: rel(d.path), message: d.message })).sort((a, b) => (a.file + a.message < b.file + b.message ? -1 : 1)),
};
console.log(JSON.stringify(out, null, 1));
