import FhirBlocks
@testable import FhirBlocksServer
import Foundation
import Testing

/// `Last-Modified` is RFC 9110's IMF-fixdate, written with the package's one civil calendar:
/// RFC 9110's own example, and random instants from 1900 to 2200 against Foundation's
/// formatter in UTC with the POSIX locale (Gregorian in that range).
@Suite struct HTTPDateHeaderTests {
    @Test func writesIMFFixdate() throws {
        #expect(FHIRController.httpDate(Timestamp(secondsSince1970: 784_111_777)) == "Sun, 06 Nov 1994 08:49:37 GMT")
        #expect(FHIRController.httpDate(Timestamp(secondsSince1970: 0)) == "Thu, 01 Jan 1970 00:00:00 GMT")
        #expect(FHIRController.httpDate(Timestamp(secondsSince1970: -1)) == "Wed, 31 Dec 1969 23:59:59 GMT")
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<2_000 {
            let seconds = Int64.random(in: -2_208_988_800...7_258_118_400, using: &generator)
            #expect(FHIRController.httpDate(Timestamp(secondsSince1970: seconds))
                    == formatter.string(from: Date(timeIntervalSince1970: TimeInterval(seconds))), "\(seconds)")
        }
    }
}
