import FhirBlocks

/// The public claims a wallet registers for its patient (§1.4): date of birth, first, middle
/// and last name, gender, sent as the five `{"key","value"}` pairs in the legacy clients'
/// order (`DateofBirth`, `FirstName`, `MiddleName`, `LastName`, `Gender`). Missing values are
/// sent empty; an app sends all five empty.
public struct PatientClaims: Sendable, Hashable {
    /// `DateofBirth` (for example `1970-01-31`).
    public var dateOfBirth: String
    /// `FirstName`.
    public var firstName: String
    /// `MiddleName`.
    public var middleName: String
    /// `LastName`.
    public var lastName: String
    /// `Gender` (for example `female`).
    public var gender: String

    /// Creates claims (every value defaults to empty).
    public init(dateOfBirth: String = "", firstName: String = "", middleName: String = "", lastName: String = "", gender: String = "") {
        self.dateOfBirth = dateOfBirth
        self.firstName = firstName
        self.middleName = middleName
        self.lastName = lastName
        self.gender = gender
    }

    /// No claims: what an app registers with.
    public static let empty = PatientClaims()

    /// The wire claims, in the legacy order.
    public var publicClaims: [PublicClaim] {
        [PublicClaim(key: "DateofBirth", value: dateOfBirth), PublicClaim(key: "FirstName", value: firstName),
         PublicClaim(key: "MiddleName", value: middleName), PublicClaim(key: "LastName", value: lastName),
         PublicClaim(key: "Gender", value: gender)]
    }
}
