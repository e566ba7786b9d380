/// The form a card arrived in (rule 31).
public enum SHCInputForm: String, Sendable, Hashable, Encodable {
    /// Compact JWS text.
    case jws
    /// A `.smart-health-card` file, `{"verifiableCredential":[…]}`.
    case file
    /// A FHIR `$health-cards-issue` `Parameters` response.
    case parameters
    /// `shc:/` numeric QR text (one line per QR code; legacy chunks allowed).
    case qrNumeric
    /// A deep link `https://…#{"verifiableCredential":[…]}`.
    case deepLink
}
