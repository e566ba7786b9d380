// swift-tools-version: 6.1
import PackageDescription

let swiftSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
]

/// The `health` release binary on Linux carries the Swift runtime and Foundation statically (see
/// the `health` target). The static libraries it names are those of the Swift 6.3 toolchain for
/// Linux, the project's toolchain; with another toolchain the release binary links them
/// dynamically, as SwiftPM does by default, rather than fail to link on a name that changed.
#if compiler(>=6.3) && !compiler(>=6.4)
let healthLinkerSettings: [LinkerSetting] = [
    .unsafeFlags(
        ["-static-stdlib", "-Xlinker", "--no-export-dynamic", "-Xlinker", "--start-group"]
            + ["FoundationXML", "_CFXMLInterface", "xml2", "Foundation", "CoreFoundation",
               "FoundationInternationalization", "_FoundationICU", "FoundationEssentials",
               "_FoundationCShims", "_FoundationCollections", "swiftSynchronization", "swiftDispatch",
               "swift_StringProcessing", "swift_RegexParser", "swift_Concurrency", "swiftGlibc",
               "swiftCore", "dispatch", "BlocksRuntime"].flatMap { ["-Xlinker", "-l" + $0] }
            + ["-Xlinker", "--end-group"],
        .when(platforms: [.linux], configuration: .release)),
]
#else
let healthLinkerSettings: [LinkerSetting] = []
#endif

let package = Package(
    name: "OpenHealthKit",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "OpenHealthKit", targets: ["OpenHealthKit"]),
        .library(name: "ExactJSON", targets: ["ExactJSON"]),
        .library(name: "FHIRCore", targets: ["FHIRCore"]),
        .library(name: "ModelsR4", targets: ["ModelsR4"]),
        .library(name: "ModelsDSTU2", targets: ["ModelsDSTU2"]),
        .library(name: "QRCode", targets: ["QRCode"]),
        .library(name: "SmartHealthCards", targets: ["SmartHealthCards"]),
        .library(name: "SmartHealthCardsHTTPS", targets: ["SmartHealthCardsHTTPS"]),
        .library(name: "SmartHealthLinks", targets: ["SmartHealthLinks"]),
        .library(name: "HealthRecords", targets: ["HealthRecords"]),
        .library(name: "RecordsSync", targets: ["RecordsSync"]),
        .library(name: "SampleFiles", targets: ["SampleFiles"]),
        .library(name: "AppleHealthExport", targets: ["AppleHealthExport"]),
        .library(name: "SampleSignatures", targets: ["SampleSignatures"]),
        .library(name: "AppleHealthClinicalRecords", targets: ["AppleHealthClinicalRecords"]),
        .library(name: "AppleHealthExportGenerator", targets: ["AppleHealthExportGenerator"]),
        .library(name: "FhirBlocks", targets: ["FhirBlocks", "FhirBlocksClient"]),
        // The server links no database: an embedder adds the store it uses (FhirBlocksSQLite or
        // FhirBlocksPostgres), or FhirBlocksDeployment, which puts a server together from its data
        // folder (key files, either store) as `health serve` does.
        .library(name: "FhirBlocksServer", targets: ["FhirBlocksServer", "FhirBlocksStore"]),
        .library(name: "FhirBlocksSQLite", targets: ["FhirBlocksSQLite"]),
        .library(name: "FhirBlocksPostgres", targets: ["FhirBlocksPostgres"]),
        .library(name: "FhirBlocksDeployment", targets: ["FhirBlocksDeployment"]),
        .library(name: "HealthSharing", targets: ["HealthSharing"]),
        .library(name: "HealthWebApp", targets: ["HealthWebApp"]),
        .library(name: "DemoData", targets: ["DemoData"]),
        .executable(name: "health", targets: ["health"]),
        // zxing-cpp and stb_image behind a C interface, as a library `QRImageReader` loads at run
        // time: the `health` tool and every other module build without them (a fresh machine
        // lacks `libzxing-dev` and `libstb-dev`); only reading a QR image needs this product.
        .library(name: "OpenHealthKitQRImages", type: .dynamic, targets: ["CQRImageReader"]),
    ],
    dependencies: [
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/apple/swift-crypto", from: "4.5.2"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/swift-extras/swift-extras-base64", from: "1.2.0"),
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.37.6"),
        .package(url: "https://github.com/apple/swift-certificates", from: "1.21.1"),
        .package(url: "https://github.com/apple/swift-asn1", from: "1.7.4"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0"),
        .package(url: "https://github.com/yaslab/CSV.swift", from: "2.5.2"),
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
        .package(url: "https://github.com/weichsel/ZIPFoundation", from: "0.9.20"),
        .package(url: "https://github.com/hummingbird-project/swift-mustache", from: "2.1.1"),
        .package(url: "https://github.com/vapor/multipart-kit", from: "4.7.1"),
    ],
    targets: [
        // What several modules need and none should write for itself: the civil calendar and
        // secret files (0600 from creation, fsync, atomic link or rename). Internal to the package.
        .target(
            name: "CommonSupport",
            dependencies: [
                "CSystemZlib",
                .product(name: "ExtrasBase64", package: "swift-extras-base64"),
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            swiftSettings: swiftSettings
        ),
        // Per-sample digital signatures (HKMetadataKeyDigitalSignature): a CMS SignedData codec
        // on swift-asn1 and swift-crypto, with no I/O.
        .target(
            name: "SampleSignatures",
            dependencies: [
                "CommonSupport",
                .product(name: "SwiftASN1", package: "swift-asn1"),
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "OpenHealthKit",
            dependencies: [
                "CommonSupport",
                "SampleSignatures",
                .product(name: "GRDB", package: "GRDB.swift"),
                // The SQLite C API GRDB runs on, for reading statistics rows without a Data per column.
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "CryptoExtras", package: "swift-crypto"),
            ],
            swiftSettings: swiftSettings
        ),
        // JSON read and written exactly (numbers as written, members in order, duplicates refused):
        // the validating tape, the tree, the parser and the writer; FHIR-free, for every module
        // that reads or writes JSON.
        .target(name: "ExactJSON", swiftSettings: swiftSettings),
        .target(name: "FHIRCore", dependencies: ["CommonSupport", "ExactJSON"], swiftSettings: swiftSettings),
        .target(name: "ModelsR4", dependencies: ["FHIRCore"], swiftSettings: swiftSettings),
        // FHIR DSTU2 (1.0.2), what HealthKit still hands out for Argonaut records; the same
        // generator and the same shared runtime (FHIRCore) as ModelsR4.
        .target(name: "ModelsDSTU2", dependencies: ["FHIRCore"], swiftSettings: swiftSettings),
        .target(name: "FHIRModelGenerator", swiftSettings: swiftSettings),
        .executableTarget(
            name: "fhir-generate-models",
            dependencies: ["FHIRModelGenerator"],
            swiftSettings: swiftSettings
        ),
        .target(name: "QRCode", swiftSettings: swiftSettings),
        .target(
            name: "CQRImageReader",
            cxxSettings: [.define("ZX_USE_UTF8")],
            linkerSettings: [.linkedLibrary("ZXing"), .linkedLibrary("stb")]
        ),
        .target(name: "QRImageReader", swiftSettings: swiftSettings),
        // The system zlib (not named CZlib: ZIPFoundation's own zlib module has that name).
        .systemLibrary(name: "CSystemZlib", pkgConfig: "zlib", providers: [.apt(["zlib1g-dev"])]),
        // SMART Health Links: links, manifests and their JWE files (the format; no I/O).
        .target(
            name: "SmartHealthLinks",
            dependencies: [
                "CommonSupport",
                "ExactJSON",
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "SmartHealthCards",
            dependencies: [
                "CommonSupport",
                "ExactJSON",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
            ],
            swiftSettings: swiftSettings
        ),
        // The one HTTP client policy (TLS 1.2+, SSL_CERT_FILE/SSL_CERT_DIR, redirects, no
        // decompression, body limits, retries of idempotent requests, timeouts) every client uses.
        .target(
            name: "HTTPClientPolicy",
            dependencies: [
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "SmartHealthCardsHTTPS",
            dependencies: [
                "CommonSupport",
                "HTTPClientPolicy",
                "SmartHealthCards",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            swiftSettings: swiftSettings
        ),
        // Samples from CSV and JSON Lines files (what `health store import` reads).
        .target(
            name: "SampleFiles",
            dependencies: ["OpenHealthKit", "CommonSupport", .product(name: "CSV", package: "CSV.swift"),
                           .product(name: "Crypto", package: "swift-crypto")],
            swiftSettings: swiftSettings
        ),
        // What a person reads and types: values in words and units (`72 bpm`, `8,412 steps`, `Core sleep
        // 47 min`), dates with their zone, everyday type and unit names; the one place the CLI and the
        // web page turn store data into words.
        .target(name: "HealthPresentation", dependencies: ["OpenHealthKit"], swiftSettings: swiftSettings),
        // `health demo`'s phone and watch data (a day's data from its date alone), also what the
        // web page's benchmark renders.
        .target(name: "DemoData", dependencies: ["OpenHealthKit"], swiftSettings: swiftSettings),
        // Apple Health exports (export.zip or export.xml), read as a stream (what `health import apple-health` reads).
        .target(
            name: "AppleHealthExport",
            dependencies: ["OpenHealthKit", "CommonSupport", "CSystemZlib", .product(name: "Crypto", package: "swift-crypto"),
                           .product(name: "ZIPFoundation", package: "ZIPFoundation")],
            swiftSettings: swiftSettings
        ),
        // Apple Health exports in Apple's format (export.xml, export.zip), for tests and benchmarks.
        .target(
            name: "AppleHealthExportGenerator",
            dependencies: ["CommonSupport", .product(name: "ZIPFoundation", package: "ZIPFoundation")],
            swiftSettings: swiftSettings
        ),
        // An export's clinical records stored through HealthRecords' importer (kept apart so that
        // AppleHealthExport does not depend on the FHIR models).
        .target(
            name: "AppleHealthClinicalRecords",
            dependencies: ["AppleHealthExport", "HealthRecords", "OpenHealthKit", "SmartHealthCards"],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "HealthRecords",
            dependencies: ["CommonSupport", "OpenHealthKit", "SmartHealthCards", "FHIRCore", "ModelsR4", "ModelsDSTU2"],
            swiftSettings: swiftSettings
        ),
        // The SMART on FHIR client of `health records connect|sync|connections`: discovery,
        // registration, PKCE, the loopback redirect, tokens, paged searches and
        // `$health-cards-issue`, stored through HealthRecords' importer.
        .target(
            name: "RecordsSync",
            dependencies: [
                "CommonSupport",
                "HTTPClientPolicy",
                "ExactJSON",
                "FHIRCore",
                "HealthRecords",
                "OpenHealthKit",
                "SmartHealthCards",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "FhirBlocks",
            dependencies: [
                "CommonSupport",
                "ExactJSON",
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            swiftSettings: swiftSettings
        ),
        .target(name: "FhirBlocksStore", dependencies: ["CommonSupport", "FhirBlocks", "ExactJSON"], swiftSettings: swiftSettings),
        .target(
            name: "FhirBlocksSQLite",
            dependencies: ["FhirBlocksStore", "FhirBlocks", .product(name: "GRDB", package: "GRDB.swift"),
                           .product(name: "GRDBSQLite", package: "GRDB.swift")],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "FhirBlocksPostgres",
            dependencies: [
                "CommonSupport",
                "FhirBlocksStore",
                "FhirBlocks",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "FhirBlocksServer",
            dependencies: [
                "CommonSupport",
                "FhirBlocks",
                "FhirBlocksStore",
                "ExactJSON",
                "ModelsR4",
                "SmartHealthCards",
                "SmartHealthLinks",
                "HTTPClientPolicy",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "HummingbirdTLS", package: "hummingbird"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "CryptoExtras", package: "swift-crypto"),
            ],
            swiftSettings: swiftSettings
        ),
        // A server put together from its data folder: the key files (0600, checked on every
        // read), the store a location names (SQLite or PostgreSQL), migration and start.
        .target(
            name: "FhirBlocksDeployment",
            dependencies: [
                "CommonSupport",
                "FhirBlocks",
                "FhirBlocksServer",
                "FhirBlocksStore",
                "FhirBlocksSQLite",
                "FhirBlocksPostgres",
                "SmartHealthCards",
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "FhirBlocksClient",
            dependencies: [
                "CommonSupport",
                "HTTPClientPolicy",
                "FhirBlocks",
                "ExactJSON",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            swiftSettings: swiftSettings
        ),
        // `health ui`: the Health web page (Hummingbird, swift-mustache templates, SVG charts), over
        // the public OpenHealthKit API as the store's owner.
        // Sharing a person's store by SMART Health Links: what to share (a patient summary, records,
        // cards) read from the store, encrypted on the person's machine, hosted through their wallet;
        // and opening a link someone hands them. Used by `health share` and `health ui`.
        .target(
            name: "HealthSharing",
            dependencies: [
                "CommonSupport",
                "OpenHealthKit",
                "HealthRecords",
                "RecordsSync",
                "SmartHealthLinks",
                "SmartHealthCards",
                "ExactJSON",
                "FhirBlocksClient",
            ],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "HealthWebApp",
            dependencies: [
                "CommonSupport",
                "OpenHealthKit",
                "HealthPresentation",
                "SmartHealthCards",
                "HealthRecords",
                "HealthSharing",
                "SmartHealthLinks",
                "QRCode",
                "QRImageReader",
                "ExactJSON",
                "FhirBlocks",
                "FhirBlocksClient",
                // The Apple Health import from the page.
                "AppleHealthExport",
                "AppleHealthClinicalRecords",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Mustache", package: "swift-mustache"),
                // multipart/form-data uploads (cards, QR images, FHIR files); Vapor itself is not used.
                .product(name: "MultipartKit", package: "multipart-kit"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "health",
            dependencies: [
                "CommonSupport",
                "DemoData",
                "HealthWebApp",
                "HealthSharing",
                "HealthPresentation",
                "SampleFiles",
                "AppleHealthExport",
                "AppleHealthClinicalRecords",
                "OpenHealthKit",
                "SampleSignatures",
                "HealthRecords",
                "RecordsSync",
                "SmartHealthCards",
                "SmartHealthCardsHTTPS",
                "QRCode",
                "QRImageReader",
                "FHIRCore",
                "ModelsR4",
                "ModelsDSTU2",
                "FhirBlocks",
                "FhirBlocksClient",
                "FhirBlocksServer",
                "FhirBlocksDeployment",
                "FhirBlocksStore",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ],
            // A Synthea patient for `health demo` (Apache-2.0; see Resources/README.md).
            resources: [.copy("Resources")],
            swiftSettings: swiftSettings,
            // The release binary carries the Swift runtime and Foundation, so a run of `health`
            // (`shc verify` of a batch of cards) does not spend most of its start in the dynamic
            // loader. The modules are compiled as usual, against the shared runtime, whose autolink
            // entries leave out what the static libraries need (ICU, XML, Foundation's internal
            // libraries), so the link names them all, in one group. The executable's own symbols
            // stay unexported (the runtime's one `dladdr` at start would otherwise search all of
            // them). Release only: the test bundle links this module too, and needs the shared
            // runtime of the test libraries (the tests run in debug).
            linkerSettings: healthLinkerSettings,
            // `health --version` names the commit the binary is built from.
            plugins: ["BuildCommit"]
        ),
        // Writes the commit of the clone (git rev-parse) into the `health` module before every build.
        .plugin(name: "BuildCommit", capability: .buildTool()),
        // What the tests share: a seedable generator, a clock they move, an inbox to wait on.
        .target(name: "TestSupport", dependencies: ["ExactJSON"], path: "Tests/TestSupport", swiftSettings: swiftSettings),
        // A loopback HTTP(S) server and a certificate authority made per test run, for the tests of
        // the HTTP clients (HTTPClientPolicyTests, SmartHealthCardsHTTPSTests), and a loopback
        // Hummingbird application for the peers tests serve (a witness, a key set URL), and the tests'
        // one HTTP client for the servers they start (HTTPExchange).
        .target(
            name: "HTTPTestSupport",
            dependencies: [
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Tests/HTTPTestSupport", swiftSettings: swiftSettings),
        .testTarget(
            name: "OpenHealthKitTests",
            dependencies: ["TestSupport", 
                "OpenHealthKit",
                "SampleSignatures",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "HealthSharingTests",
            dependencies: ["TestSupport", "HealthSharing", "OpenHealthKit", "HealthRecords", "SmartHealthLinks", "FHIRCore"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "HealthRecordsTests",
            dependencies: ["TestSupport", "HealthRecords", "OpenHealthKit", "SmartHealthCards", "FHIRCore", "ModelsR4", "ModelsDSTU2"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "RecordsSyncTests",
            dependencies: ["CommonSupport", "TestSupport", "HTTPTestSupport", "RecordsSync", "HealthRecords", "OpenHealthKit", "SmartHealthCards", "FHIRCore",
                           "FhirBlocks",
                           .product(name: "AsyncHTTPClient", package: "async-http-client"),
                           .product(name: "NIOCore", package: "swift-nio"),
                           .product(name: "Hummingbird", package: "hummingbird"),
                           .product(name: "Logging", package: "swift-log")],
            swiftSettings: swiftSettings
        ),
        // GRDB: a test adds a trigger to a store's file to make one batch's write fail.
        .testTarget(name: "AppleHealthExportTests",
                    dependencies: ["TestSupport", "AppleHealthExport", "AppleHealthExportGenerator", "OpenHealthKit",
                                   .product(name: "GRDB", package: "GRDB.swift")],
                    swiftSettings: swiftSettings),
        .testTarget(name: "AppleHealthClinicalRecordsTests",
                    dependencies: ["TestSupport", "AppleHealthClinicalRecords", "AppleHealthExport", "AppleHealthExportGenerator", "OpenHealthKit"],
                    swiftSettings: swiftSettings),
        .testTarget(name: "SampleSignaturesTests", dependencies: ["TestSupport", "SampleSignatures", .product(name: "Crypto", package: "swift-crypto"),
                                                            .product(name: "SwiftASN1", package: "swift-asn1")],
                    swiftSettings: swiftSettings),
        .testTarget(name: "HealthPresentationTests", dependencies: ["TestSupport", "HealthPresentation", "OpenHealthKit"],
                    swiftSettings: swiftSettings),
        .testTarget(name: "DemoDataTests", dependencies: ["DemoData", "OpenHealthKit"], swiftSettings: swiftSettings),
        .testTarget(name: "SampleFilesTests", dependencies: ["TestSupport", "SampleFiles", "OpenHealthKit"], swiftSettings: swiftSettings),
        .testTarget(name: "CommonSupportTests", dependencies: ["TestSupport", "CommonSupport"], swiftSettings: swiftSettings),
        .testTarget(name: "ExactJSONTests", dependencies: ["TestSupport", "ExactJSON"], swiftSettings: swiftSettings),
        .testTarget(name: "FHIRCoreTests", dependencies: ["TestSupport", "FHIRCore", "CommonSupport"], swiftSettings: swiftSettings),
        .testTarget(name: "ModelsR4Tests", dependencies: ["TestSupport", "ModelsR4", "FHIRCore"], swiftSettings: swiftSettings),
        .testTarget(name: "ModelsDSTU2Tests", dependencies: ["TestSupport", "ModelsDSTU2", "FHIRCore"], swiftSettings: swiftSettings),
        // Code written the way FHIRModels documents it; imports ModelsR4 alone.
        .testTarget(name: "FHIRModelsCompatibilityTests", dependencies: ["ModelsR4"], swiftSettings: swiftSettings),
        .testTarget(
            name: "FHIRModelGeneratorTests",
            dependencies: ["TestSupport", "FHIRModelGenerator"],
            swiftSettings: swiftSettings
        ),
        .testTarget(name: "QRCodeTests", dependencies: ["TestSupport", "QRCode"], swiftSettings: swiftSettings),
        .testTarget(name: "QRImageReaderTests", dependencies: ["TestSupport", "QRImageReader", "QRCode"], swiftSettings: swiftSettings),
        .testTarget(
            name: "HTTPClientPolicyTests",
            dependencies: ["TestSupport", "HTTPTestSupport",
                "HTTPClientPolicy",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "SmartHealthCardsHTTPSTests",
            dependencies: ["TestSupport", "HTTPTestSupport", 
                "SmartHealthCardsHTTPS",
                "SmartHealthCards",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "SmartHealthLinksTests",
            dependencies: ["CommonSupport", "TestSupport", "HTTPTestSupport", "SmartHealthLinks", "ExactJSON", "RecordsSync",
                           .product(name: "NIOCore", package: "swift-nio"),
                           .product(name: "Hummingbird", package: "hummingbird"),
                           .product(name: "Logging", package: "swift-log")],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "SmartHealthCardsTests",
            dependencies: ["CommonSupport", "TestSupport", "SmartHealthCards", "ExactJSON", .product(name: "Crypto", package: "swift-crypto")],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "FhirBlocksTests",
            dependencies: ["CommonSupport", "TestSupport", "FhirBlocks", "ExactJSON"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "FhirBlocksClientTests",
            dependencies: ["TestSupport", "FhirBlocksClient", "FhirBlocks", "ExactJSON"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "FhirBlocksStoreTests",
            dependencies: ["TestSupport", "FhirBlocksStore", "FhirBlocksSQLite", "FhirBlocksPostgres", "FhirBlocks",
                           .product(name: "GRDB", package: "GRDB.swift"), .product(name: "PostgresNIO", package: "postgres-nio")],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "FhirBlocksPostgresTests",
            dependencies: ["TestSupport", 
                "FhirBlocksPostgres",
                "FhirBlocksStore",
                "FhirBlocks",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "FhirBlocksServerTests",
            dependencies: ["CommonSupport", "TestSupport", "HTTPTestSupport", 
                "FhirBlocksServer",
                "FhirBlocksSQLite",
                "FhirBlocksPostgres",
                .product(name: "GRDB", package: "GRDB.swift"),
                "FhirBlocksClient",
                "FhirBlocksStore",
                "FhirBlocks",
                "ExactJSON",
                "SmartHealthCards",
                "SmartHealthLinks",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "CryptoExtras", package: "swift-crypto"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "FhirBlocksDeploymentTests",
            dependencies: ["TestSupport", "FhirBlocksDeployment", "FhirBlocksServer", "FhirBlocks", "SmartHealthCards"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "HealthWebAppTests",
            dependencies: ["TestSupport", "HTTPTestSupport", "ExactJSON", "HealthWebApp", "OpenHealthKit", "SmartHealthCards", "SmartHealthLinks", "QRCode",
                           "QRImageReader",
                           .product(name: "Hummingbird", package: "hummingbird"),
                           .product(name: "HummingbirdTesting", package: "hummingbird")],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "healthTests",
            dependencies: ["CommonSupport", "TestSupport", "HTTPTestSupport", 
                "health",
                "RecordsSync",
                "HealthRecords",
                "AppleHealthExportGenerator",
                "OpenHealthKit",
                "FhirBlocks",
                "FhirBlocksClient",
                "FhirBlocksPostgres",
                "FHIRCore",
                "SmartHealthLinks",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            swiftSettings: swiftSettings
        ),
    ],
    swiftLanguageModes: [.v6],
    cxxLanguageStandard: .cxx17
)
