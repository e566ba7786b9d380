import ArgumentParser
import Foundation
import QRCode
import SmartHealthCards

/// `health shc issue BUNDLE.json --key KEY.jwk --iss URL [--rid-secret S --rid-for ID] [--out FILE] [--qr FILE.svg|png|-]`.
struct ShcIssueCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "issue",
        abstract: "Issue a SMART Health Card from a FHIR Bundle: minimized, compressed, signed.",
        discussion: """
            Without --out the JWS is printed. --out FILE.smart-health-card writes a health card file; any other name gets the JWS text.
            --qr writes the QR code as SVG or PNG (by extension), or draws it on the terminal with -.
            A card too long for one version-22 QR code is an error unless --allow-chunks (deprecated by the specification) is given.
            """)

    @Argument(help: "A FHIR R4 Bundle (JSON).")
    var bundle: String

    @Option(help: ArgumentHelp("The issuer's private JWK (from health shc keygen).", valueName: "KEY.jwk"))
    var key: String

    @Option(help: ArgumentHelp("The issuer URL: https, no trailing slash.", valueName: "URL"))
    var iss: String

    @Option(help: ArgumentHelp("A secret for revocation ids (with --rid-for).", valueName: "S"))
    var ridSecret: String?

    @Option(help: ArgumentHelp("The subject (e.g. a patient id) the revocation id is derived for.", valueName: "ID"))
    var ridFor: String?

    @Option(help: ArgumentHelp("Write the card here.", valueName: "FILE"))
    var out: String?

    @Option(help: ArgumentHelp("Write the QR code: FILE.svg, FILE.png, or - for the terminal.", valueName: "FILE.svg|png|-"))
    var qr: String?

    @Option(name: .customLong("type"), help: "An extra vc.type URI, e.g. https://smarthealth.cards#immunization (repeatable).")
    var types: [String] = []

    @Flag(help: "Split a long card over several QR codes (deprecated chunking).")
    var allowChunks = false

    func run() async throws {
        guard (ridSecret == nil) == (ridFor == nil) else { throw UsageError("--rid-secret and --rid-for go together") }
        let bundleBytes = try readInput(bundle)
        let issuerKey: SHCIssuerKey
        do {
            issuerKey = try SHCIssuerKey(privateJWKBytes: try readInput(key))
        } catch let error as UsageError {
            throw error
        } catch {
            throw UsageError("--key: \(error)")
        }
        let issuer: SHCIssuer
        do {
            issuer = try SHCIssuer(key: issuerKey, issuer: iss)
        } catch {
            throw UsageError("--iss: \(error)")
        }
        let rid = ridSecret.flatMap { secret in ridFor.map { SHCRevocation.rid(secret: secret, kid: issuerKey.kid, subject: $0) } }
        let jws: String
        do {
            jws = try issuer.issue(bundle: bundleBytes, types: types, nbf: Date(), rid: rid)
        } catch {
            throw UsageError("cannot issue a card from \(bundle): \(error)")
        }
        var qrTexts: [String] = []
        if qr != nil {
            do {
                qrTexts = try SHCNumeric.encodeForQR(jws, allowLegacyChunking: allowChunks)
            } catch {
                throw UsageError("\(error)")
            }
        }
        if let out {
            let url = URL(fileURLWithPath: out)
            do {
                if url.pathExtension == SHCFile.fileExtension {
                    try SHCFile.write([jws], to: url)
                } else {
                    // Exactly the JWS: rule 13 makes surrounding whitespace an error for verifiers.
                    try Data(jws.utf8).write(to: url, options: .atomic)
                }
            } catch {
                throw UsageError("cannot write \(out): \(ErrorReport.reason(error))")
            }
        } else {
            print(jws)
        }
        if let qr {
            try writeQRCodes(qrTexts, to: qr)
        }
        if let rid { try? FileHandle.standardError.write(contentsOf: Data("rid: \(rid)\n".utf8)) }
    }

    private func writeQRCodes(_ texts: [String], to destination: String) throws {
        for (index, text) in texts.enumerated() {
            let code: QRCode
            do {
                code = try QRCode.smartHealthCard(numeric: text)
            } catch {
                throw UsageError("\(error)")
            }
            if destination == "-" {
                if texts.count > 1 { print("QR \(index + 1) of \(texts.count)") }
                print(code.terminalText())
                continue
            }
            var url = URL(fileURLWithPath: destination)
            if texts.count > 1 {
                let ext = url.pathExtension
                url = url.deletingPathExtension().appendingPathExtension("\(index + 1)").appendingPathExtension(ext)
            }
            let bytes: [UInt8]
            switch url.pathExtension.lowercased() {
            case "svg": bytes = Array(code.svg().utf8)
            case "png": bytes = code.png()
            default: throw UsageError("--qr: use a .svg or .png file name, or - for the terminal")
            }
            do {
                try Data(bytes).write(to: url, options: .atomic)
            } catch {
                throw UsageError("cannot write \(url.path): \(ErrorReport.reason(error))")
            }
        }
    }
}
