import CommonSupport
import Foundation
import HealthRecords
import QRImageReader

/// The inputs of the "Add a card" form: card files as they are, QR images read by
/// `QRImageReader` (zxing-cpp), pasted text tidied by ``PastedCardText``. What cannot be read is
/// listed with its reason instead.
enum CardUpload {
    /// Why an uploaded image gave no card text (no file paths or content in the messages).
    enum ImageFailure: Error, CustomStringConvertible {
        case notAnImage, noQRCode, unreadable, readerUnavailable

        var description: String {
            switch self {
            case .notAnImage: "the file is not a PNG or JPEG image"
            case .noQRCode: "no QR code was found in the image"
            case .unreadable: "the image could not be read"
            case .readerUnavailable:
                "QR images cannot be read on this computer (zxing-cpp is not installed); upload the card file or paste its shc:/ text instead"
            }
        }
    }

    /// The name a pasted card is reported under.
    static let pastedName = "the pasted text"

    /// The form's card inputs, and what could not be read.
    static func inputs(_ form: MultipartForm) -> (inputs: [(name: String, bytes: [UInt8])], unreadable: [(input: String, reason: String)]) {
        var inputs: [(name: String, bytes: [UInt8])] = []
        var unreadable: [(input: String, reason: String)] = []
        for file in form.files(named: "card") { inputs.append((file.filename, file.bytes)) }
        for image in form.files(named: "image") {
            do {
                inputs.append((image.filename, try qrText(image.bytes)))
            } catch {
                unreadable.append((image.filename, error.description))
            }
        }
        if let pasted = form["shc"], pasted.contains(where: { !$0.isWhitespace }) {
            do {
                inputs.append((pastedName, try PastedCardText.normalize(pasted)))
            } catch {
                unreadable.append((pastedName, error.description))
            }
        }
        return (inputs, unreadable)
    }

    /// The QR text of an uploaded image, one code per line (chunks of one card, or several cards).
    static func qrText(_ bytes: [UInt8]) throws(ImageFailure) -> [UInt8] {
        guard QRImageReader.isImage(bytes) else { throw .notAnImage }
        if case .failure = QRImageReader.availability { throw .readerUnavailable }
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("health-ui-qr-\(UUID().uuidString)")
        do {
            try SecretFile.save(bytes, to: url.path, replacing: false)
        } catch {
            throw .unreadable
        }
        defer { try? FileManager.default.removeItem(at: url) }
        let texts: [String]
        do {
            texts = try QRImageReader.texts(inImageAt: url)
        } catch {
            if case .readerUnavailable = error { throw .readerUnavailable }
            throw .unreadable
        }
        guard !texts.isEmpty else { throw .noQRCode }
        return Array(texts.joined(separator: "\n").utf8)
    }

    /// Whether an input is FHIR resources rather than a card (those are imported on the Health records page).
    static func isFHIR(_ bytes: [UInt8]) -> Bool {
        if case .resources? = try? HealthRecordInput.read(bytes, validate: nil) { return true }
        return false
    }
}
