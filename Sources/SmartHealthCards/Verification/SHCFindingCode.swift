/// The stable codes of verification findings. The raw value is the code printed in reports and
/// `--json` output; it never changes once published. Each code has one checklist rule
/// (docs/smart-health-cards.md) and one severity.
///
/// | code | rule | severity | meaning |
/// |---|---|---|---|
/// | `jws.trailing-characters` | 13 | error | Whitespace or a byte-order mark around the JWS. |
/// | `jws.format` | 13 | error | Not three non-empty base64url segments separated by dots. |
/// | `jws.padding` | 13 | error | A segment carries `=` base64 padding. |
/// | `jws.too-large` | 13 | error | The JWS is longer than `SHCLimits.maxJWSLength`. |
/// | `jws.header.invalid` | 11 | error | The header is not a base64url JSON object. |
/// | `jws.header.alg` | 11 | error | `alg` is missing or not `ES256`. |
/// | `jws.header.zip` | 11 | error | `zip` is missing or not `DEF`. |
/// | `jws.header.kid` | 11 | error | `kid` is missing or not a string. |
/// | `jws.header.crit` | 11 | error | The header has `crit` parameters this verifier cannot honour (RFC 7515 section 4.1.11). |
/// | `jws.signature.format` | 12 | error | The signature is not 64 raw bytes r‖s (e.g. ASN.1 DER). |
/// | `jws.signature.invalid` | 33 | error | ES256 verification failed with the issuer's key. |
/// | `payload.zlib-wrapped` | 14 | error | The payload is zlib-wrapped DEFLATE, not raw DEFLATE. |
/// | `payload.gzip-wrapped` | 14 | error | The payload is gzip-wrapped DEFLATE, not raw DEFLATE. |
/// | `payload.not-compressed` | 14 | error | The payload is plain JSON, not compressed. |
/// | `payload.inflate` | 14 | error | The payload is not a valid raw DEFLATE stream (corrupt, truncated or followed by other bytes). |
/// | `payload.too-large` | 14 | error | Inflating would exceed `SHCLimits.maxInflatedBytes` (zip-bomb guard). |
/// | `payload.json` | 14 | error | The inflated payload is not a UTF-8 JSON object (or nests deeper than the limit). |
/// | `payload.not-minified` | 14 | warning | The payload JSON has whitespace between tokens. |
/// | `claims.iss.missing` | 15 | error | `iss` is missing or not a string. |
/// | `claims.iss.scheme` | 6 | error | `iss` does not use the `https` scheme. |
/// | `claims.iss.trailing-slash` | 6 | error | `iss` ends with `/`. |
/// | `claims.iss.invalid` | 6 | error | `iss` is not an absolute URL with a host (or has a query, fragment or whitespace). |
/// | `claims.nbf.missing` | 16 | error | `nbf` is missing. |
/// | `claims.nbf.type` | 16 | error | `nbf` is not a JSON number. |
/// | `claims.nbf.milliseconds` | 16 | error | `nbf` looks like milliseconds rather than seconds. |
/// | `claims.nbf.future` | 34 | warning | `nbf` is later than now plus the allowed clock skew. |
/// | `claims.exp.type` | 17 | error | `exp` is present but not a JSON number. |
/// | `claims.exp.expired` | 17 | error | `exp` is before now: the card has expired. |
/// | `claims.exp.before-nbf` | 17 | error | `exp` is not after `nbf`. |
/// | `claims.vc.missing` | 18 | error | `vc` is missing or not an object. |
/// | `claims.vc.type.missing` | 18 | error | `vc.type` is missing or not an array of strings. |
/// | `claims.vc.type.health-card` | 18 | error | `vc.type` lacks `https://smarthealth.cards#health-card`. |
/// | `claims.vc.json-ld` | 18 | warning | `VerifiableCredential` type or `@context` in the payload (JSON-LD mapping only). |
/// | `claims.vc.fhir-version` | 19 | error | `vc.credentialSubject.fhirVersion` is missing or not a semantic version string. |
/// | `claims.rid.format` | 40 | error | `vc.rid` is not a string of at most 24 base64url characters. |
/// | `claims.unexpected` | 21 | warning | A claim other than `iss`, `nbf`, `exp`, `vc`; or a `vc` member other than `type`, `credentialSubject`, `rid`. |
/// | `bundle.missing` | 20 | error | `vc.credentialSubject` or its `fhirBundle` is missing or not an object. |
/// | `bundle.resource-type` | 20 | error | `fhirBundle.resourceType` is not `Bundle`. |
/// | `bundle.type` | 20 | warning | `Bundle.type` is missing. |
/// | `bundle.entry` | 20 | error | `Bundle.entry` is not an array of objects each with a `resource` that has a `resourceType`. |
/// | `bundle.minimization.id` | 23 | warning | A resource has an `id` (not minimized). |
/// | `bundle.minimization.meta` | 24 | warning | A resource has `meta` other than `meta.security` alone. |
/// | `bundle.minimization.text` | 25 | warning | A resource has narrative `text`. |
/// | `bundle.minimization.codeable-concept-text` | 26 | warning | A CodeableConcept has `text`. |
/// | `bundle.minimization.coding-display` | 27 | warning | A Coding has `display`. |
/// | `bundle.full-url` | 28 | error | An entry's `fullUrl` is missing or not `resource:N`. |
/// | `bundle.full-url.duplicate` | 29 | error | Two entries have the same `fullUrl`. |
/// | `bundle.reference` | 29 | error | A `Reference.reference` is not `resource:N` or matches no entry's `fullUrl`. |
/// | `bundle.empty-element` | 29 | error | An empty string, array or object (FHIR forbids empty elements). |
/// | `bundle.immunization.status` | 30 | error | An Immunization whose `status` is not `completed`. |
/// | `bundle.immunization.occurrence` | 30 | error | An Immunization without exactly one of `occurrenceDateTime` and `occurrenceString`. |
/// | `key.issuer-unknown` | 33 | error | No resolver has a JWKS for this `iss`. |
/// | `key.resolver-failed` | 33 | error | The JWKS for this `iss` could not be obtained or parsed. |
/// | `key.not-found` | 33 | error | The issuer's JWKS has no key with the header's `kid`. |
/// | `key.kty` | 2 | error | The key's `kty` is not `EC`. |
/// | `key.crv` | 2 | error | The key's `crv` is not `P-256`. |
/// | `key.use` | 7 | error | The key's `use` is not `sig`. |
/// | `key.alg` | 2 | error | The key's `alg` is not `ES256`. |
/// | `key.coordinates` | 2 | error | The key's `x`/`y` are not 32-byte base64url coordinates of a P-256 point. |
/// | `key.coordinate-length` | 2 | warning | The key's `x` or `y` is shorter than 32 bytes (leading zeros dropped, seen in production); accepted. |
/// | `key.private` | 4 | error | The public key carries the private member `d`. |
/// | `key.kid` | 3 | error | The key's `kid` is not its RFC 7638 SHA-256 thumbprint. |
/// | `key.x5c.format` | 9 | warning | `x5c` is not an array of base64 DER certificates whose leaf can be read. |
/// | `key.x5c.key-mismatch` | 9 | error | The `x5c` leaf certificate's public key differs from the JWK. |
/// | `key.x5c.validity` | 10 | warning | The `x5c` leaf certificate is expired or not yet valid (no PKI trust framework configured). |
/// | `key.x5c.san` | 10 | warning | No `uniformResourceIdentifier` SAN of the `x5c` leaf equals `iss`. |
/// | `revocation.crl-unavailable` | 42 | error | The key has `crlVersion` but its CRL could not be obtained. |
/// | `revocation.crl-version` | 43 | error | The key's `crlVersion` is not an integer of at least 1. |
/// | `revocation.crl-lenient` | 43 | warning | `crlVersion` or `ctr` is a numeric string instead of a number (accepted). |
/// | `revocation.crl-kid` | 43 | error | The CRL's `kid` differs from the key's. |
/// | `revocation.crl-method` | 43 | error | The CRL's `method` is neither `rid` nor the legacy `hash-fhir` (rule 44). |
/// | `revocation.crl-ctr` | 43 | error | The CRL's `ctr` differs from the key's `crlVersion`. |
/// | `revocation.crl-entry` | 43 | error | An entry is not `rid` or `rid.timestamp` (rid: ≤ 24 base64url characters): no card is accepted against the CRL. |
/// | `revocation.crl-duplicate` | 43 | error | The CRL lists a rid twice (rule 43): no card is accepted against it. |
/// | `revocation.crl-empty` | 43 | warning | The CRL's `rids` is empty. |
/// | `revocation.revoked` | 42 | error | The card's `rid` is revoked (listed without timestamp, or `nbf` before the entry's timestamp). |
/// | `trust.untrusted` | 55 | warning | The issuer is not trusted by the configured trust policy. |
/// | `input.qr-chunked` | 49 | warning | The card came as deprecated multi-chunk QR codes. |
public enum SHCFindingCode: String, Sendable, Hashable, Codable, CaseIterable {
    /// Whitespace or a byte-order mark around the JWS.
    case jwsTrailingCharacters = "jws.trailing-characters"
    /// Not three non-empty base64url segments separated by dots.
    case jwsFormat = "jws.format"
    /// A segment carries `=` base64 padding.
    case jwsPadding = "jws.padding"
    /// The JWS is longer than `SHCLimits.maxJWSLength`.
    case jwsTooLarge = "jws.too-large"
    /// The header is not a base64url JSON object.
    case headerInvalid = "jws.header.invalid"
    /// `alg` is missing or not `ES256`.
    case headerAlg = "jws.header.alg"
    /// `zip` is missing or not `DEF`.
    case headerZip = "jws.header.zip"
    /// `kid` is missing or not a string.
    case headerKid = "jws.header.kid"
    /// The header has `crit` parameters this verifier cannot honour (RFC 7515 section 4.1.11).
    case headerCrit = "jws.header.crit"
    /// The signature is not 64 raw bytes r‖s (e.g. ASN.1 DER).
    case signatureFormat = "jws.signature.format"
    /// ES256 verification failed with the issuer's key.
    case signatureInvalid = "jws.signature.invalid"
    /// The payload is zlib-wrapped DEFLATE, not raw DEFLATE.
    case payloadZlibWrapped = "payload.zlib-wrapped"
    /// The payload is gzip-wrapped DEFLATE, not raw DEFLATE.
    case payloadGzipWrapped = "payload.gzip-wrapped"
    /// The payload is plain JSON, not compressed.
    case payloadNotCompressed = "payload.not-compressed"
    /// The payload is not a valid raw DEFLATE stream (corrupt, truncated or followed by other bytes).
    case payloadInflate = "payload.inflate"
    /// Inflating would exceed `SHCLimits.maxInflatedBytes` (zip-bomb guard).
    case payloadTooLarge = "payload.too-large"
    /// The inflated payload is not a UTF-8 JSON object (or nests deeper than the limit).
    case payloadJSON = "payload.json"
    /// The payload JSON has whitespace between tokens.
    case payloadNotMinified = "payload.not-minified"
    /// `iss` is missing or not a string.
    case issMissing = "claims.iss.missing"
    /// `iss` does not use the `https` scheme.
    case issScheme = "claims.iss.scheme"
    /// `iss` ends with `/`.
    case issTrailingSlash = "claims.iss.trailing-slash"
    /// `iss` is not an absolute URL with a host (or has a query, fragment or whitespace).
    case issInvalid = "claims.iss.invalid"
    /// `nbf` is missing.
    case nbfMissing = "claims.nbf.missing"
    /// `nbf` is not a JSON number.
    case nbfType = "claims.nbf.type"
    /// `nbf` looks like milliseconds rather than seconds.
    case nbfMilliseconds = "claims.nbf.milliseconds"
    /// `nbf` is later than now plus the allowed clock skew.
    case nbfFuture = "claims.nbf.future"
    /// `exp` is present but not a JSON number.
    case expType = "claims.exp.type"
    /// `exp` is before now: the card has expired.
    case expExpired = "claims.exp.expired"
    /// `exp` is not after `nbf`.
    case expBeforeNbf = "claims.exp.before-nbf"
    /// `vc` is missing or not an object.
    case vcMissing = "claims.vc.missing"
    /// `vc.type` is missing or not an array of strings.
    case vcTypeMissing = "claims.vc.type.missing"
    /// `vc.type` lacks `https://smarthealth.cards#health-card`.
    case vcTypeHealthCard = "claims.vc.type.health-card"
    /// `VerifiableCredential` type or `@context` in the payload (JSON-LD mapping only).
    case vcJSONLD = "claims.vc.json-ld"
    /// `vc.credentialSubject.fhirVersion` is missing or not a semantic version string.
    case fhirVersion = "claims.vc.fhir-version"
    /// `vc.rid` is not a string of at most 24 base64url characters.
    case ridFormat = "claims.rid.format"
    /// A top-level claim other than `iss`, `nbf`, `exp` and `vc`, or a `vc` member other than `type`, `credentialSubject` and `rid`.
    case claimsUnexpected = "claims.unexpected"
    /// `vc.credentialSubject` or its `fhirBundle` is missing or not an object.
    case bundleMissing = "bundle.missing"
    /// `fhirBundle.resourceType` is not `Bundle`.
    case bundleResourceType = "bundle.resource-type"
    /// `Bundle.type` is missing.
    case bundleType = "bundle.type"
    /// `Bundle.entry` is not an array of objects each with a `resource` that has a `resourceType`.
    case bundleEntry = "bundle.entry"
    /// A resource has an `id` (not minimized).
    case minimizationID = "bundle.minimization.id"
    /// A resource has `meta` other than `meta.security` alone.
    case minimizationMeta = "bundle.minimization.meta"
    /// A resource has narrative `text`.
    case minimizationText = "bundle.minimization.text"
    /// A CodeableConcept has `text`.
    case minimizationCodeableConceptText = "bundle.minimization.codeable-concept-text"
    /// A Coding has `display`.
    case minimizationCodingDisplay = "bundle.minimization.coding-display"
    /// An entry's `fullUrl` is missing or not `resource:N`.
    case fullURL = "bundle.full-url"
    /// Two entries have the same `fullUrl`.
    case fullURLDuplicate = "bundle.full-url.duplicate"
    /// A `Reference.reference` is not `resource:N` or matches no entry's `fullUrl`.
    case reference = "bundle.reference"
    /// An empty string, array or object (FHIR forbids empty elements).
    case emptyElement = "bundle.empty-element"
    /// An Immunization whose `status` is not `completed`.
    case immunizationStatus = "bundle.immunization.status"
    /// An Immunization without exactly one of `occurrenceDateTime` and `occurrenceString`.
    case immunizationOccurrence = "bundle.immunization.occurrence"
    /// No resolver has a JWKS for this `iss`.
    case issuerUnknown = "key.issuer-unknown"
    /// The JWKS for this `iss` could not be obtained or parsed.
    case resolverFailed = "key.resolver-failed"
    /// The issuer's JWKS has no key with the header's `kid`.
    case keyNotFound = "key.not-found"
    /// The key's `kty` is not `EC`.
    case keyType = "key.kty"
    /// The key's `crv` is not `P-256`.
    case keyCurve = "key.crv"
    /// The key's `use` is not `sig`.
    case keyUse = "key.use"
    /// The key's `alg` is not `ES256`.
    case keyAlg = "key.alg"
    /// The key's `x`/`y` are not 32-byte base64url coordinates of a P-256 point.
    case keyCoordinates = "key.coordinates"
    /// The key's `x` or `y` is shorter than 32 bytes (leading zeros dropped, seen in production); accepted.
    case keyCoordinateLength = "key.coordinate-length"
    /// The public key carries the private member `d`.
    case keyPrivate = "key.private"
    /// The key's `kid` is not its RFC 7638 SHA-256 thumbprint.
    case keyKid = "key.kid"
    /// `x5c` is not an array of base64 DER certificates whose leaf can be read.
    case x5cFormat = "key.x5c.format"
    /// The `x5c` leaf certificate's public key differs from the JWK.
    case x5cKeyMismatch = "key.x5c.key-mismatch"
    /// The `x5c` leaf certificate is expired or not yet valid (no PKI trust framework configured).
    case x5cValidity = "key.x5c.validity"
    /// No `uniformResourceIdentifier` SAN of the `x5c` leaf equals `iss`.
    case x5cSAN = "key.x5c.san"
    /// The key has `crlVersion` but its CRL could not be obtained.
    case crlUnavailable = "revocation.crl-unavailable"
    /// The key's `crlVersion` is not an integer of at least 1.
    case crlVersion = "revocation.crl-version"
    /// `crlVersion` or `ctr` is a numeric string instead of a number (accepted).
    case crlLenient = "revocation.crl-lenient"
    /// The CRL's `kid` differs from the key's.
    case crlKid = "revocation.crl-kid"
    /// The CRL's `method` is neither `rid` nor the legacy `hash-fhir` (rule 44).
    case crlMethod = "revocation.crl-method"
    /// The CRL's `ctr` differs from the key's `crlVersion`.
    case crlCtr = "revocation.crl-ctr"
    /// A CRL entry is not `rid` or `rid.timestamp` with a base64url rid of at most 24 characters.
    case crlEntry = "revocation.crl-entry"
    /// The CRL lists a rid twice.
    case crlDuplicate = "revocation.crl-duplicate"
    /// The CRL's `rids` is empty.
    case crlEmpty = "revocation.crl-empty"
    /// The card's `rid` is revoked (listed without timestamp, or `nbf` before the entry's timestamp).
    case revoked = "revocation.revoked"
    /// The issuer is not trusted by the configured trust policy.
    case issuerUntrusted = "trust.untrusted"
    /// The card came as deprecated multi-chunk QR codes.
    case qrChunked = "input.qr-chunked"

    /// The checklist rule (docs/smart-health-cards.md) the code belongs to.
    public var rule: Int {
        switch self {
        case .keyType, .keyCurve, .keyAlg, .keyCoordinates, .keyCoordinateLength: 2
        case .keyKid: 3
        case .keyPrivate: 4
        case .issScheme, .issTrailingSlash, .issInvalid: 6
        case .keyUse: 7
        case .x5cFormat, .x5cKeyMismatch: 9
        case .x5cValidity, .x5cSAN: 10
        case .headerInvalid, .headerAlg, .headerZip, .headerKid, .headerCrit: 11
        case .signatureFormat: 12
        case .jwsTrailingCharacters, .jwsFormat, .jwsPadding, .jwsTooLarge: 13
        case .payloadZlibWrapped, .payloadGzipWrapped, .payloadNotCompressed, .payloadInflate, .payloadTooLarge, .payloadJSON, .payloadNotMinified: 14
        case .issMissing: 15
        case .nbfMissing, .nbfType, .nbfMilliseconds: 16
        case .expType, .expExpired, .expBeforeNbf: 17
        case .vcMissing, .vcTypeMissing, .vcTypeHealthCard, .vcJSONLD: 18
        case .fhirVersion: 19
        case .bundleMissing, .bundleResourceType, .bundleType, .bundleEntry: 20
        case .claimsUnexpected: 21
        case .minimizationID: 23
        case .minimizationMeta: 24
        case .minimizationText: 25
        case .minimizationCodeableConceptText: 26
        case .minimizationCodingDisplay: 27
        case .fullURL: 28
        case .fullURLDuplicate, .reference, .emptyElement: 29
        case .immunizationStatus, .immunizationOccurrence: 30
        case .signatureInvalid, .issuerUnknown, .resolverFailed, .keyNotFound: 33
        case .nbfFuture: 34
        case .ridFormat: 40
        case .crlUnavailable, .revoked: 42
        case .crlVersion, .crlLenient, .crlKid, .crlMethod, .crlCtr, .crlEntry, .crlDuplicate, .crlEmpty: 43
        case .qrChunked: 49
        case .issuerUntrusted: 55
        }
    }

    /// Whether the code is an error or a warning.
    public var severity: SHCFinding.Severity {
        switch self {
        case .payloadNotMinified, .nbfFuture, .vcJSONLD, .claimsUnexpected, .bundleType, .minimizationID, .minimizationMeta, .minimizationText,
             .minimizationCodeableConceptText, .minimizationCodingDisplay, .keyCoordinateLength, .x5cFormat, .x5cValidity, .x5cSAN, .crlLenient, .crlEmpty,
             .issuerUntrusted, .qrChunked:
            .warning
        default:
            .error
        }
    }
}
