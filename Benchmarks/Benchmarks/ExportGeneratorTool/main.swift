import AppleHealthExportGenerator
import Foundation

// export-generator COUNT OUT.xml [OUT.zip]: writes the benchmark's generated export (COUNT
// records in Apple's format) for the person's path in scripts/bench.sh, and optionally the
// same export.xml inside an export.zip as the Health app writes it.
let arguments = CommandLine.arguments
guard arguments.count >= 3, let count = Int(arguments[1]), count >= 0 else {
    FileHandle.standardError.write(Data("usage: export-generator COUNT OUT.xml [OUT.zip]\n".utf8))
    exit(2)
}
let xml = URL(fileURLWithPath: arguments[2])
try AppleHealthExportGenerator.writeLargeExport(records: count, to: xml)
if arguments.count >= 4 {
    try AppleHealthExportGenerator.writeZip(to: URL(fileURLWithPath: arguments[3]), exportXML: try Data(contentsOf: xml, options: .alwaysMapped))
}
