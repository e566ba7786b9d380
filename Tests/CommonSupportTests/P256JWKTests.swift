import CommonSupport
import Crypto
import Testing

@Suite("P-256 JWK coordinates and thumbprints")
struct P256JWKTests {
    @Test("The SMART Health Cards example key's kid is its RFC 7638 thumbprint")
    func specExampleThumbprint() throws {
        let x = "11XvRWy1I2S0EyJlyf_bWfw_TQ5CJJNLw78bHXNxcgw", y = "eZXwxvO1hvCY0KucrPfKo7yAyMT6Ajc3N7OkAB6VYy8"
        #expect(P256JWK.thumbprint(x: x, y: y) == "3Kfdg-XwP-7gXyywtUfUADwBumDOPKMQx-iELL11W9s")
        let key = try #require(P256JWK.publicKey(x: x, y: y)).key
        #expect(P256JWK.thumbprint(of: key) == "3Kfdg-XwP-7gXyywtUfUADwBumDOPKMQx-iELL11W9s")
        #expect(P256JWK.coordinates(of: key) == (x, y))
    }

    @Test("Coordinates round-trip; short ones only when asked; off-curve points and bad text are refused")
    func coordinates() throws {
        for _ in 0..<50 {
            let key = P256.Signing.PrivateKey().publicKey
            let (x, y) = P256JWK.coordinates(of: key)
            #expect(P256JWK.publicKey(x: x, y: y)?.key.rawRepresentation == key.rawRepresentation)
        }
        let (x, y) = P256JWK.coordinates(of: P256.Signing.PrivateKey().publicKey)
        // Swapped coordinates are (with overwhelming probability) not a point on the curve.
        #expect(P256JWK.publicKey(x: y, y: x) == nil)
        #expect(P256JWK.publicKey(x: x + "=", y: y) == nil)
        #expect(P256JWK.publicKey(x: String(x.dropFirst(2)), y: y) == nil)
        #expect(P256JWK.publicKey(x: "AAAA", y: "AAAA", acceptingShortCoordinates: true) == nil)
    }
}
