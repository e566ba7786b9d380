import AppleHealthExportGenerator
import Foundation

// export-generator COUNT OUT.xml [OUT.zip]: writes the benchmark's generated export (COUNT
// records in Apple's format) for the person's path in scripts/bench.sh, and optionally the
// same export.xml inside an export.zip as the Health app writes it.
// export-generator --days N OUT.xml [OUT.zip]: writes a person's export of N days (an iPhone,
// an Apple Watch, a scale, workouts with GPX routes; 730 days is the two-year export of issue
// 36), the routes into workout-routes/ beside OUT.xml, and optionally both in an export.zip.
let arguments = CommandLine.arguments
let usage = "usage: export-generator COUNT OUT.xml [OUT.zip]\n       export-generator --days N OUT.xml [OUT.zip]\n"
if arguments.count >= 4, arguments[1] == "--days" {
    guard let days = Int(arguments[2]), days >= 0 else {
        FileHandle.standardError.write(Data(usage.utf8))
        exit(2)
    }
    let xml = URL(fileURLWithPath: arguments[3])
    let routes = xml.deletingLastPathComponent().appendingPathComponent("workout-routes")
    let summary = try AppleHealthExportGenerator.writePersonExport(days: days, to: xml, routes: routes)
    print("\(summary.recordCount) records (\(summary.records.count) types), \(summary.correlations) correlations, \(summary.workouts) workouts, "
        + "\(summary.routePointCount) route points, \(summary.activitySummaries) activity summaries, export.xml \(summary.xmlBytes) bytes")
    for (type, count) in summary.records.sorted(by: { $0.value > $1.value }) { print("  \(type) \(count)") }
    if arguments.count >= 5 {
        try AppleHealthExportGenerator.writeZip(to: URL(fileURLWithPath: arguments[4]), exportXMLFile: xml, routes: routes)
    }
    exit(0)
}
guard arguments.count >= 3, let count = Int(arguments[1]), count >= 0 else {
    FileHandle.standardError.write(Data(usage.utf8))
    exit(2)
}
let xml = URL(fileURLWithPath: arguments[2])
try AppleHealthExportGenerator.writeLargeExport(records: count, to: xml)
if arguments.count >= 4 {
    try AppleHealthExportGenerator.writeZip(to: URL(fileURLWithPath: arguments[3]), exportXML: try Data(contentsOf: xml, options: .alwaysMapped))
}
