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

/// The device's name, for `HKQuery.predicateForObjects(withDeviceProperty:allowedValues:)`.
public let HKDevicePropertyKeyName = "HKDevicePropertyName"
/// The device's manufacturer, for `predicateForObjects(withDeviceProperty:allowedValues:)`.
public let HKDevicePropertyKeyManufacturer = "HKDevicePropertyManufacturer"
/// The device's model, for `predicateForObjects(withDeviceProperty:allowedValues:)`.
public let HKDevicePropertyKeyModel = "HKDevicePropertyModel"
/// The device's hardware version, for `predicateForObjects(withDeviceProperty:allowedValues:)`.
public let HKDevicePropertyKeyHardwareVersion = "HKDevicePropertyHardwareVersion"
/// The device's firmware version, for `predicateForObjects(withDeviceProperty:allowedValues:)`.
public let HKDevicePropertyKeyFirmwareVersion = "HKDevicePropertyFirmwareVersion"
/// The device's software version, for `predicateForObjects(withDeviceProperty:allowedValues:)`.
public let HKDevicePropertyKeySoftwareVersion = "HKDevicePropertySoftwareVersion"
/// The device's local identifier, for `predicateForObjects(withDeviceProperty:allowedValues:)`.
public let HKDevicePropertyKeyLocalIdentifier = "HKDevicePropertyLocalIdentifier"
/// The device's FDA Unique Device Identifier, for `predicateForObjects(withDeviceProperty:allowedValues:)`.
public let HKDevicePropertyKeyUDIDeviceIdentifier = "HKDevicePropertyUDIDeviceIdentifier"

extension HKDevice {
    /// The value of one of the `HKDevicePropertyKey…` properties; nil for an unknown key or a
    /// property the device does not have.
    func value(forProperty key: String) -> String? {
        switch key {
        case HKDevicePropertyKeyName: return name
        case HKDevicePropertyKeyManufacturer: return manufacturer
        case HKDevicePropertyKeyModel: return model
        case HKDevicePropertyKeyHardwareVersion: return hardwareVersion
        case HKDevicePropertyKeyFirmwareVersion: return firmwareVersion
        case HKDevicePropertyKeySoftwareVersion: return softwareVersion
        case HKDevicePropertyKeyLocalIdentifier: return localIdentifier
        case HKDevicePropertyKeyUDIDeviceIdentifier: return udiDeviceIdentifier
        default: return nil
        }
    }
}
