#!/usr/bin/env python3
"""The FHIR REST a client expects, done by Python `fhirpy` (a widely used FHIR client) against
the FhirBlocks server with a bearer token the test obtained: a transaction Bundle (a Patient and
two Observations and a Provenance linked by urn:uuid), a transaction with one invalid entry
(refused, nothing stored), a search with _include and _revinclude through fhirpy's search set,
an update and a delete through its resource API, the instance and type history, a read of the
deleted resource. Prints one JSON object; the test compares it with the server's own answers.

    fhirpy-rest.py FHIR_BASE TOKEN
"""
import json
import sys

from fhirpy import SyncFHIRClient

LOINC = {"coding": [{"system": "http://loinc.org", "code": "8867-4"}]}


def observation(subject, value):
    return {"resourceType": "Observation", "status": "final", "code": LOINC, "subject": {"reference": subject},
            "effectiveDateTime": "2020-01-05", "valueQuantity": {"value": value, "unit": "/min"}}


def entry(resource, url, full_url=None):
    item = {"resource": resource, "request": {"method": "POST", "url": url}}
    if full_url:
        item["fullUrl"] = full_url
    return item


def named(bundle):
    """`Type/id|mode` of each entry of a search Bundle, sorted."""
    return sorted(f"{e['resource']['resourceType']}/{e['resource']['id']}|{e['search']['mode']}" for e in bundle.get("entry", []))


def history(bundle):
    return [[e["request"]["method"], e["response"]["etag"], "resource" in e] for e in bundle.get("entry", [])]


def main():
    base, token = sys.argv[1], sys.argv[2]
    client = SyncFHIRClient(base, authorization=f"Bearer {token}")
    result = {}
    patient_urn = "urn:uuid:6a1c3f0e-2b7d-4e8a-9c1f-0d2e3f4a5b6c"
    first_urn = "urn:uuid:7b2d4f1a-3c8e-4f9b-8d2a-1e3f4a5b6c7d"
    transaction = {"resourceType": "Bundle", "type": "transaction", "entry": [
        entry({"resourceType": "Patient", "name": [{"family": "Peer"}]}, "Patient", patient_urn),
        entry(observation(patient_urn, 71), "Observation", first_urn),
        entry(observation(patient_urn, 72), "Observation"),
        entry({"resourceType": "Provenance", "target": [{"reference": first_urn}], "recorded": "2020-01-05T10:00:00Z",
               "agent": [{"who": {"display": "Dr. Lee"}}]}, "Provenance"),
    ]}
    response = client.execute(base, method="post", data=transaction)
    result["transaction_type"] = response["type"]
    result["transaction_statuses"] = [e["response"]["status"] for e in response["entry"]]
    ids = [e["resource"]["id"] for e in response["entry"]]
    patient, first, second, provenance = ids
    result["ids"] = ids
    result["subjects"] = [e["resource"]["subject"]["reference"] for e in response["entry"][1:3]]

    # One entry without its required status: refused, and nothing of it stored.
    before = client.resources("Observation").count()
    failing = {"resourceType": "Bundle", "type": "transaction", "entry": [
        entry(observation(f"Patient/{patient}", 80), "Observation"),
        entry({"resourceType": "Observation", "code": LOINC}, "Observation"),
    ]}
    try:
        client.execute(base, method="post", data=failing)
        result["failing_transaction"] = "stored"
    except Exception as error:  # fhirpy raises OperationOutcome for a 4xx
        result["failing_transaction"] = type(error).__name__
    result["count_unchanged"] = client.resources("Observation").count() == before

    # _include and _revinclude through the search set.
    search = (client.resources("Observation").search(subject=f"Patient/{patient}")
              .include("Observation", "subject").revinclude("Provenance", "target"))
    result["include"] = named(search.fetch_raw())
    result["include_query"] = f"Observation?subject=Patient/{patient}&_include=Observation:subject&_revinclude=Provenance:target"

    # An update through the resource API, then a delete; the history shows both.
    resource = client.reference("Observation", first).to_resource()
    resource["status"] = "amended"
    resource.save()
    client.reference("Observation", second).delete()
    result["history_first"] = history(client.execute(f"Observation/{first}/_history", method="get"))
    result["history_second"] = history(client.execute(f"Observation/{second}/_history", method="get"))
    result["history_type"] = history(client.resources("Observation").execute("_history", method="get"))
    try:
        client.reference("Observation", second).to_resource()
        result["deleted_read"] = "found"
    except Exception as error:  # fhirpy raises ResourceNotFound for 404 and 410
        result["deleted_read"] = type(error).__name__
    result["first_status"] = client.reference("Observation", first).to_resource()["status"]
    result["provenance"] = provenance
    print(json.dumps(result))


if __name__ == "__main__":
    main()
