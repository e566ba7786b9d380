import Foundation

/// The hardware that produced a sample (HealthKit's `HKDevice`).
public final class HKDevice: NSObject, @unchecked Sendable, Codable {
    /// The device's name.
    public let name: String?
    /// The manufacturer.
    public let manufacturer: String?
    /// The model.
    public let model: String?
    /// The hardware version.
    public let hardwareVersion: String?
    /// The firmware version.
    public let firmwareVersion: String?
    /// The software version.
    public let softwareVersion: String?
    /// An identifier the producing app uses for the device.
    public let localIdentifier: String?
    /// The FDA Unique Device Identifier.
    public let udiDeviceIdentifier: String?

    /// Creates a device description.
    public init(name: String?, manufacturer: String?, model: String?, hardwareVersion: String?, firmwareVersion: String?,
                softwareVersion: String?, localIdentifier: String?, udiDeviceIdentifier: String?) {
        self.name = name
        self.manufacturer = manufacturer
        self.model = model
        self.hardwareVersion = hardwareVersion
        self.firmwareVersion = firmwareVersion
        self.softwareVersion = softwareVersion
        self.localIdentifier = localIdentifier
        self.udiDeviceIdentifier = udiDeviceIdentifier
    }

    /// The machine the process runs on.
    public class func local() -> HKDevice {
        let info = ProcessInfo.processInfo
        return HKDevice(name: info.hostName, manufacturer: nil, model: HKSourceRevision.currentProductType,
                        hardwareVersion: nil, firmwareVersion: nil, softwareVersion: info.operatingSystemVersionString,
                        localIdentifier: nil, udiDeviceIdentifier: nil)
    }

    private var fields: [String?] {
        [name, manufacturer, model, hardwareVersion, firmwareVersion, softwareVersion, localIdentifier, udiDeviceIdentifier]
    }

    public override func isEqual(_ object: Any?) -> Bool {
        (object as? HKDevice)?.fields == fields
    }

    public override var hash: Int { fields.hashValue }
}
