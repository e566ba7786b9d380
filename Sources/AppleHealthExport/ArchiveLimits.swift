import Foundation

extension AppleHealthImporter {
    /// What the importer accepts from a zip archive, against zip bombs: entries are inflated as
    /// they are read and never written to disk, and these bound how much one entry may inflate to.
    public struct ArchiveLimits: Sendable, Equatable {
        /// The most bytes `export.xml` may inflate to.
        public var maximumExportSize: UInt64
        /// The most bytes another file the importer reads (a clinical record, a route) may inflate to.
        public var maximumFileSize: UInt64
        /// The highest ratio of inflated to compressed size accepted for an entry larger than
        /// ``ratioThreshold`` (an export compresses about 15–30 to 1; deflate's ceiling is about 1,030 to 1).
        public var maximumCompressionRatio: UInt64
        /// Entries up to this size are not held to ``maximumCompressionRatio``.
        public var ratioThreshold: UInt64

        /// Creates limits; the defaults take any real export.
        public init(maximumExportSize: UInt64 = 64 << 30, maximumFileSize: UInt64 = 64 << 20,
                    maximumCompressionRatio: UInt64 = 200, ratioThreshold: UInt64 = 1 << 20) {
            self.maximumExportSize = maximumExportSize
            self.maximumFileSize = maximumFileSize
            self.maximumCompressionRatio = maximumCompressionRatio
            self.ratioThreshold = ratioThreshold
        }

        /// Refuses an entry whose declared sizes break the limits (the inflater also stops an
        /// entry that inflates to more than it declares).
        func check(declared: UInt64, compressed: UInt64, isExport: Bool = true) throws(AppleHealthExportError) {
            let maximum = isExport ? maximumExportSize : maximumFileSize
            guard declared <= maximum else {
                throw AppleHealthExportError(.unsafeArchive, "an entry of the zip archive inflates to more than \(maximum) bytes")
            }
            if declared > ratioThreshold, declared / max(compressed, 1) > maximumCompressionRatio {
                throw AppleHealthExportError(.unsafeArchive,
                                             "an entry of the zip archive inflates more than \(maximumCompressionRatio) times: a zip bomb")
            }
        }
    }
}
