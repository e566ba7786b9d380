import Testing

/// One behaviour every ``FhirBlocksStore/TrustStore`` must have, run against a fresh session.
struct ConformanceCheck: Sendable, CustomTestStringConvertible {
    /// What is checked (shown as the test case's argument).
    let name: String
    /// The check.
    let run: @Sendable (StoreSession) async throws -> Void

    var testDescription: String { name }
}
