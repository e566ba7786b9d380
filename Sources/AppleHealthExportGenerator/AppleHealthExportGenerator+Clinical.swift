import CommonSupport
import Foundation

extension AppleHealthExportGenerator {
    /// Appends an `Audiogram` element with one `SensitivityPoint` per frequency, as the Health
    /// app exports a hearing test: `points` are (frequency in Hz, left and right ear in dBHL,
    /// nil for an ear not tested); the left ear's first point is masked and clamped to 0–90.
    /// - Parameters:
    ///   - source: The `sourceName`.
    ///   - start: The `startDate`, as the export writes dates.
    ///   - end: The `endDate`.
    ///   - points: The sensitivity points, by ascending frequency.
    public mutating func audiogram(source: String = "Mimi", start: String, end: String,
                                   points: [(hertz: Double, left: Double?, right: Double?)]) {
        var text = " <Audiogram type=\"HKDataTypeIdentifierAudiogram\" sourceName=\"\(Self.escape(source))\" sourceVersion=\"5.2\""
        text += " creationDate=\"\(end)\" startDate=\"\(start)\" endDate=\"\(end)\">\n"
        for (index, point) in points.enumerated() {
            text += "  <SensitivityPoint frequencyValue=\"\(point.hertz)\" frequencyUnit=\"Hz\""
            if let left = point.left {
                text += " leftEarValue=\"\(left)\" leftEarUnit=\"dBHL\""
                if index == 0 { text += " leftEarMasked=\"true\" leftEarClampingRangeLowerBound=\"0\" leftEarClampingRangeUpperBound=\"90\"" }
            }
            if let right = point.right { text += " rightEarValue=\"\(right)\" rightEarUnit=\"dBHL\"" }
            text += "/>\n"
        }
        text += " </Audiogram>"
        body.append(text)
    }

    /// Appends a glasses `VisionPrescription` (both eyes, the right with a prism) and a contacts
    /// one (its brand, base curve and diameter), with an `Attachment` as the Health app lists a
    /// scanned prescription (the image itself is not in the export).
    /// - Parameters:
    ///   - issued: The `dateIssued` of both, as the export writes dates.
    ///   - expires: The glasses prescription's `expirationDate`.
    public mutating func visionPrescriptions(issued: String, expires: String) {
        body.append("""
             <VisionPrescription type="HKVisionPrescriptionTypeGlasses" dateIssued="\(issued)" expirationDate="\(expires)">
              <RightEye sphere="-0.75" sphereUnit="D" cylinder="1.25" cylinderUnit="D" axis="90" axisUnit="deg" vertex="12" vertexUnit="mm" prismAmount="0.25" \
            prismAmountUnit="pD" prismAngle="15" prismAngleUnit="deg" farPD="31" farPDUnit="mm"/>
              <LeftEye sphere="-1" sphereUnit="D"/>
              <Attachment identifier="0C8F4A8E-3B8D-4E62-9C1E-5E2B7F1A9D10"/>
             </VisionPrescription>
             <VisionPrescription type="HKVisionPrescriptionTypeContacts" dateIssued="\(issued)" brand="Acme Daily">
              <RightEye sphere="-2" sphereUnit="D" baseCurve="8.6" baseCurveUnit="mm" diameter="14.2" diameterUnit="mm"/>
              <LeftEye sphere="-2.25" sphereUnit="D" baseCurve="8.6" baseCurveUnit="mm" diameter="14.2" diameterUnit="mm"/>
             </VisionPrescription>
            """)
    }

    /// Appends the Health app's sleep goal, a bare `HKDataTypeSleepDurationGoal` record (a setting, not a sample).
    /// - Parameter date: When the goal was set, as the export writes dates.
    public mutating func sleepDurationGoal(at date: String) {
        record(type: "HKDataTypeSleepDurationGoal", unit: "s", value: "28800", source: "Health", version: "17.0", start: date, end: date)
    }

    /// An `electrocardiograms/ecg_….csv` file as the Health app writes it: the header lines up to
    /// `Sample Rate`, an empty line, `Lead` and `Unit`, an empty line, then `values` (µV) one per
    /// line. `header` replaces or removes (nil) header lines by name.
    /// - Parameters:
    ///   - recorded: The `Recorded Date`, as the export writes dates.
    ///   - classification: The `Classification` line.
    ///   - symptoms: The `Symptoms` line (empty: none).
    ///   - sampleRate: The `Sample Rate` in hertz.
    ///   - values: The voltages in µV.
    ///   - header: Header lines to replace (a value) or remove (nil), by name.
    public static func electrocardiogramCSV(recorded: String, classification: String = "Sinus Rhythm", symptoms: String = "",
                                            sampleRate: Int = 512, values: [Double], header: [String: String?] = [:]) -> String {
        var lines: [(String, String)] = [
            ("Name", "Jane Appleseed"), ("Date of Birth", "\"Jan 1, 1980\""), ("Recorded Date", recorded),
            ("Classification", classification), ("Symptoms", symptoms), ("Software Version", "2"),
            ("Device", "\"Apple Watch Series 6 (Watch6,1) - watchOS 7.3\""), ("Sample Rate", "\(sampleRate) hertz"),
            ("Lead", "Lead I"), ("Unit", "µV"),
        ]
        lines = lines.compactMap { name, value in
            guard let replacement = header[name] else { return (name, value) }
            return replacement.map { (name, $0) }
        }
        // The Health app writes an empty line between `Sample Rate` and `Lead`, and one before the values.
        var text = lines.map { name, value in (name == "Lead" ? "\n" : "") + "\(name),\(value)" }.joined(separator: "\n") + "\n\n"
        for value in values { text += "\(value)\n" }
        return text
    }

    /// A 30 s recording at 512 Hz (15,360 values): a heartbeat-like wave, to three decimals.
    /// - Parameter count: How many values.
    public static func electrocardiogramWave(count: Int = 15_360) -> [Double] {
        (0..<count).map { index in
            let phase = Double(index % 512) / 512
            let spike = phase < 0.04 ? 900 * sin(phase / 0.04 * .pi) : 0
            return ((spike + 40 * sin(2 * .pi * phase)) * 1000).rounded() / 1000
        }
    }
}
