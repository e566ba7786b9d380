#!/usr/bin/env python3
"""A real SMART on FHIR client against the FhirBlocks server: Python `fhirclient` (SMART's own
library) in backend-services mode. It discovers the token endpoint from /metadata (the
CapabilityStatement's oauth-uris extension, the only discovery fhirclient reads), posts
client_credentials with the given ES256 client assertion, reads the patient the token names
and searches their Observations. Prints one JSON object; exits non-zero on any failure.

    fhirclient-backend.py FHIR_BASE APP_ID JWT SCOPE
"""
import json
import sys

from fhirclient import client
import fhirclient.models.observation as observation


def main():
    base, app_id, jwt, scope = sys.argv[1:5]
    smart = client.FHIRClient(settings={"app_id": app_id, "api_base": base, "jwt_token": jwt, "scope": scope})
    smart.prepare()
    smart.authorize()
    patient = smart.patient
    search = observation.Observation.where({"patient": smart.patient_id})
    observations = search.perform_resources(smart.server)
    print(json.dumps({
        "ready": smart.ready,
        "patient_id": smart.patient_id,
        "patient": patient.as_json() if patient else None,
        "observations": [o.as_json() for o in observations],
    }))


if __name__ == "__main__":
    main()
