/// The credential type URIs of the `health-card` CodeSystem (rules 18 and 54).
public enum SHCCredentialType {
    /// `https://smarthealth.cards#health-card`: required in every card.
    public static let healthCard = "https://smarthealth.cards#health-card"
    /// `https://smarthealth.cards#immunization` (deprecated since 1.4.0; accepted).
    public static let immunization = "https://smarthealth.cards#immunization"
    /// `https://smarthealth.cards#laboratory` (deprecated since 1.4.0; accepted).
    public static let laboratory = "https://smarthealth.cards#laboratory"
    /// `https://smarthealth.cards#covid19` (deprecated since 1.4.0; accepted).
    public static let covid19 = "https://smarthealth.cards#covid19"
}
