import Foundation
import OpenHealthKit

/// An electrocardiogram read from one CSV file as the Health app exports it (an export's
/// `electrocardiograms/ecg_2026-11-20.csv`), for adding a recording outside a whole export
/// (`health store add --type ecg --file …`).
///
/// The file is read as ``AppleHealthImporter`` reads it inside an export: the header's recorded
/// date, classification, symptoms, software version, device and sample rate, and every voltage
/// of lead I in µV. The recording gets the same content-derived sync identifier as the import
/// gives it: saved under the import's `ECG` source (``AppleHealthImporter/source(named:)``), a
/// file that an export brought in, or one added twice, is stored once.
public enum ElectrocardiogramFile {
    /// The largest file read: an hour of voltages at 512 Hz (1,843,200 voltages) at about
    /// fifteen bytes a line.
    public static let maximumBytes = 32 << 20

    /// The electrocardiogram a file's bytes describe.
    /// - Parameters:
    ///   - data: The file's bytes.
    ///   - metadata: Entries added to the recording's metadata (its sync identifier and
    ///     version stay the file's unless given here).
    /// - Throws: ``AppleHealthExportError``: `tooLarge` for a file over ``maximumBytes``, a
    ///   line over 4,096 bytes or more than an hour of voltages, `invalidElement` (with the
    ///   line) for a file that is not such a CSV or a recording HealthKit cannot hold.
    public static func electrocardiogram(_ data: Data, metadata: [String: Any]? = nil) throws(AppleHealthExportError) -> HKElectrocardiogram {
        guard data.count <= maximumBytes else {
            throw AppleHealthExportError(.tooLarge, "an electrocardiogram CSV is larger than \(maximumBytes >> 20) MB")
        }
        let bytes = [UInt8](data)
        let csv = try ElectrocardiogramCSV(bytes)
        do {
            return try csv.electrocardiogram(digest: ElectrocardiogramCSV.digest(bytes), extra: metadata)
        } catch {
            throw AppleHealthExportError(.invalidElement, "an electrocardiogram CSV describes a recording HealthKit cannot hold: \(error)")
        }
    }
}
