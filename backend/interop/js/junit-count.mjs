// Reads a JUnit XML file with fast-xml-parser, independently of the Go code that wrote it, and prints
// what it holds as one JSON line: suites, test cases, failures (counted from the elements and as the
// root declares them) and the failing cases' names. Run by the agenthub scenario CLI test (../../../scenario_cli_test.go).
import { readFileSync } from "node:fs";
import { XMLParser, XMLValidator } from "fast-xml-parser";

const xml = readFileSync(process.argv[2], "utf8");
const valid = XMLValidator.validate(xml);
if (valid !== true) {
  console.error(JSON.stringify(valid));
  process.exit(1);
}
const doc = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: "",
  isArray: (name) => name === "testsuite" || name === "testcase",
}).parse(xml);
const root = doc.testsuites;
let tests = 0, failures = 0;
const failed = [];
for (const suite of root.testsuite ?? []) {
  for (const c of suite.testcase ?? []) {
    tests++;
    if (c.failure !== undefined) {
      failures++;
      failed.push({ name: c.name, file: c.file, line: Number(c.line), message: c.failure.message });
    }
  }
}
console.log(JSON.stringify({
  suites: (root.testsuite ?? []).length, tests, failures, failed,
  declaredTests: Number(root.tests), declaredFailures: Number(root.failures),
}));
