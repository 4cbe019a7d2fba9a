#!/usr/bin/env python3
"""Checks magpie's OpenAPI document with independent tools (tests/it/api_openapi.rs runs this).

    check.py DOC.json                 validate DOC as OpenAPI 3.1 (openapi-spec-validator)
    check.py DOC.json SAMPLES.json    ... and every recorded live response against the schema
                                      DOC declares for its route, status and media type

SAMPLES is a JSON array of {"method", "route", "path", "status", "content_type", "body"}, where
`route` is the path template as in DOC and `body` the parsed JSON body (absent if not JSON).
JSON bodies are validated with jsonschema's Draft 2020-12 validator (OpenAPI 3.1's dialect),
resolving `$ref`s inside DOC. Every mismatch is printed; the exit status is 1 if there is any.
"""
import json
import sys

from jsonschema import Draft202012Validator
from openapi_spec_validator import validate
from openapi_spec_validator.validation import OpenAPIV31SpecValidator


def resolve(doc, node):
    """Follows a local `$ref` (response objects may be references)."""
    while isinstance(node, dict) and "$ref" in node:
        ref = node["$ref"]
        node = doc
        for part in ref.lstrip("#/").split("/"):
            node = node[part.replace("~1", "/").replace("~0", "~")]
    return node


def pointer(*parts):
    return "#/" + "/".join(str(p).replace("~", "~0").replace("/", "~1") for p in parts)


def media_matches(declared, actual):
    if declared == "*/*" or declared == actual:
        return True
    if declared.endswith("/*"):
        return actual.startswith(declared[:-1])
    return False


def check_sample(doc, s):
    """The list of problems with one live response."""
    where = f"{s['method'].upper()} {s['path']} -> {s['status']}"
    op = doc["paths"].get(s["route"], {}).get(s["method"])
    if op is None:
        return [f"{where}: the route {s['route']} is not documented"]
    responses = op.get("responses", {})
    status = str(s["status"])
    key = status if status in responses else f"{status[0]}XX" if f"{status[0]}XX" in responses else "default"
    if key not in responses:
        return [f"{where}: status {status} is not documented (documented: {sorted(responses)})"]
    response = resolve(doc, responses[key])
    content = response.get("content", {})
    actual = (s.get("content_type") or "").split(";")[0].strip().lower()
    if not content:
        return [] if "body" not in s else [f"{where}: a body ({actual}) where none is documented"]
    declared = [m for m in content if media_matches(m, actual)]
    if not declared:
        return [f"{where}: media type {actual!r} not documented (documented: {sorted(content)})"]
    if "body" not in s:
        return []
    media = declared[0]
    if "schema" not in content[media]:
        return []
    # The document itself is the root schema; `$ref` points at the declared response schema,
    # so every `$ref` in it resolves against the document's components.
    if "$ref" in responses[key]:
        ref = responses[key]["$ref"]
        target = ref + "/content/" + media.replace("~", "~0").replace("/", "~1") + "/schema"
    else:
        target = pointer("paths", s["route"], s["method"], "responses", key, "content", media, "schema")
    root = dict(doc)
    root["$ref"] = target
    validator = Draft202012Validator(root, format_checker=Draft202012Validator.FORMAT_CHECKER)
    return [
        f"{where}: {'/'.join(map(str, e.absolute_path)) or '(body)'}: {e.message}"
        for e in validator.iter_errors(s["body"])
    ]


def self_test(doc):
    """Bodies that break the document must be caught, or a passing run proves nothing."""
    bad = [
        ("/api/v1/crawls/{id}", 404, {"error": "x", "code": "no-such-code"}),
        ("/api/v1/crawls/{id}", 200, {"id": "c", "spec": {"name": "c", "seeds": [], "bogus": 1}}),
        ("/api/v1/crawls/{id}", 418, {}),
    ]
    for route, status, body in bad:
        sample = {"method": "get", "route": route, "path": route, "status": status,
                  "content_type": "application/json", "body": body}
        if not check_sample(doc, sample):
            raise SystemExit(f"self-test: {route} {status} {body} was not caught")


def main():
    doc = json.load(open(sys.argv[1]))
    validate(doc, cls=OpenAPIV31SpecValidator)
    print(f"the document is valid OpenAPI {doc['openapi']}")
    if len(sys.argv) < 3:
        return 0
    self_test(doc)
    samples = json.load(open(sys.argv[2]))
    problems = [p for s in samples for p in check_sample(doc, s)]
    for p in problems:
        print(p)
    print(f"{len(samples)} live responses checked, {len(problems)} mismatches")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
