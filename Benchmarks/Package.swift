// swift-tools-version: 6.1
import PackageDescription

// The benchmarks live in their own package so that building or testing OpenHealthKit never
// pulls in ordo-one/benchmark. Run them from the repository root with
//   swift package --package-path Benchmarks benchmark
// or with scripts/bench.sh.
let package = Package(
    name: "OpenHealthKitBenchmarks",
    platforms: [.macOS(.v15)],
    dependencies: [
        // Named, so the product resolves whatever the checkout folder is called.
        .package(name: "OpenHealthKit", path: ".."),
        .package(url: "https://github.com/ordo-one/benchmark", from: "1.38.1", traits: ["MallocInterposer"]),
        // For the ceilings: raw GRDB over the same SQLite build the store uses.
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        // For the card ceilings: raw P-256 (the same swift-crypto the SmartHealthCards module uses).
        .package(url: "https://github.com/apple/swift-crypto", from: "4.5.2"),
        // For the server ceilings: a Hummingbird hello-world route, called through the same client.
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
    ],
    targets: [
        // System zlib for the cards' floor (raw inflate of the same payload, beside the signature).
        .systemLibrary(name: "BenchZlib", path: "Benchmarks/BenchZlib"),
        // What the store benchmarks share: scratch folders, a new encrypted store, rates.
        .target(
            name: "BenchmarkSupport",
            dependencies: [.product(name: "OpenHealthKit", package: "OpenHealthKit")],
            path: "Benchmarks/BenchmarkSupport",
            swiftSettings: [.enableUpcomingFeature("ExistentialAny")]
        ),
        .executableTarget(
            name: "StoreBenchmarks",
            dependencies: [
                "BenchmarkSupport",
                .product(name: "OpenHealthKit", package: "OpenHealthKit"),
                .product(name: "Benchmark", package: "benchmark"),
                .product(name: "GRDB", package: "GRDB.swift"),
            ],
            path: "Benchmarks/StoreBenchmarks",
            swiftSettings: [.enableUpcomingFeature("ExistentialAny")],
            plugins: [
                .plugin(name: "BenchmarkPlugin", package: "benchmark"),
            ]
        ),
        .executableTarget(
            name: "CardBenchmarks",
            dependencies: [
                .product(name: "SmartHealthCards", package: "OpenHealthKit"),
                .product(name: "QRCode", package: "OpenHealthKit"),
                .product(name: "Benchmark", package: "benchmark"),
                .product(name: "Crypto", package: "swift-crypto"),
                "BenchZlib",
            ],
            path: "Benchmarks/CardBenchmarks",
            swiftSettings: [.enableUpcomingFeature("ExistentialAny")],
            plugins: [
                .plugin(name: "BenchmarkPlugin", package: "benchmark"),
            ]
        ),
        .executableTarget(
            name: "FHIRBenchmarks",
            dependencies: [
                .product(name: "FHIRCore", package: "OpenHealthKit"),
                .product(name: "ModelsR4", package: "OpenHealthKit"),
                .product(name: "Benchmark", package: "benchmark"),
            ],
            path: "Benchmarks/FHIRBenchmarks",
            swiftSettings: [.enableUpcomingFeature("ExistentialAny")],
            plugins: [
                .plugin(name: "BenchmarkPlugin", package: "benchmark"),
            ]
        ),
        .executableTarget(
            name: "RecordsBenchmarks",
            dependencies: [
                .product(name: "HealthRecords", package: "OpenHealthKit"),
                .product(name: "OpenHealthKit", package: "OpenHealthKit"),
                .product(name: "SmartHealthCards", package: "OpenHealthKit"),
                .product(name: "FHIRCore", package: "OpenHealthKit"),
                .product(name: "ModelsR4", package: "OpenHealthKit"),
                .product(name: "Benchmark", package: "benchmark"),
                .product(name: "GRDB", package: "GRDB.swift"),
            ],
            path: "Benchmarks/RecordsBenchmarks",
            swiftSettings: [.enableUpcomingFeature("ExistentialAny")],
            plugins: [
                .plugin(name: "BenchmarkPlugin", package: "benchmark"),
            ]
        ),
        // The samples the import of the generated large export stores, for the import ceilings.
        .target(
            name: "ImportSupport",
            dependencies: [
                .product(name: "AppleHealthExport", package: "OpenHealthKit"),
                .product(name: "AppleHealthExportGenerator", package: "OpenHealthKit"),
                .product(name: "OpenHealthKit", package: "OpenHealthKit"),
            ],
            path: "Benchmarks/ImportSupport",
            swiftSettings: [.enableUpcomingFeature("ExistentialAny")]
        ),
        .executableTarget(
            name: "SyncBenchmarks",
            dependencies: [
                .product(name: "RecordsSync", package: "OpenHealthKit"),
                .product(name: "HealthRecords", package: "OpenHealthKit"),
                .product(name: "OpenHealthKit", package: "OpenHealthKit"),
                .product(name: "SmartHealthCards", package: "OpenHealthKit"),
                .product(name: "FHIRCore", package: "OpenHealthKit"),
                .product(name: "Benchmark", package: "benchmark"),
                .product(name: "Hummingbird", package: "hummingbird"),
            ],
            path: "Benchmarks/SyncBenchmarks",
            swiftSettings: [.enableUpcomingFeature("ExistentialAny")],
            plugins: [
                .plugin(name: "BenchmarkPlugin", package: "benchmark"),
            ]
        ),
        .executableTarget(
            name: "ImportBenchmarks",
            dependencies: [
                "BenchmarkSupport",
                "ImportSupport",
                .product(name: "AppleHealthExport", package: "OpenHealthKit"),
                .product(name: "AppleHealthExportGenerator", package: "OpenHealthKit"),
                .product(name: "OpenHealthKit", package: "OpenHealthKit"),
                .product(name: "Benchmark", package: "benchmark"),
            ],
            path: "Benchmarks/ImportBenchmarks",
            swiftSettings: [.enableUpcomingFeature("ExistentialAny")],
            plugins: [
                .plugin(name: "BenchmarkPlugin", package: "benchmark"),
            ]
        ),
        // Writes the import benchmark's export for the person's path (scripts/bench.sh import).
        .executableTarget(
            name: "export-generator",
            dependencies: [.product(name: "AppleHealthExportGenerator", package: "OpenHealthKit")],
            path: "Benchmarks/ExportGeneratorTool",
            swiftSettings: [.enableUpcomingFeature("ExistentialAny")]
        ),
        // The import `health import apple-health` runs, without the CLI, for peak memory, and the
        // store's bulk save of the same samples (`import-probe save`) as the person's path's
        // ceiling (scripts/bench.sh import).
        .executableTarget(
            name: "import-probe",
            dependencies: [
                "ImportSupport",
                .product(name: "AppleHealthExport", package: "OpenHealthKit"),
                .product(name: "OpenHealthKit", package: "OpenHealthKit"),
            ],
            path: "Benchmarks/ImportProbe",
            swiftSettings: [.enableUpcomingFeature("ExistentialAny")]
        ),
        // One decode's time in a short batch (scripts/bench-fhir-paired.py alternates it with
        // Python's fhir.resources on the same bytes).
        .executableTarget(
            name: "fhir-decode-probe",
            dependencies: [
                .product(name: "FHIRCore", package: "OpenHealthKit"),
                .product(name: "ModelsR4", package: "OpenHealthKit"),
            ],
            path: "Benchmarks/FHIRDecodeProbe",
            swiftSettings: [.enableUpcomingFeature("ExistentialAny")]
        ),
        .executableTarget(
            name: "ParsingBenchmarks",
            dependencies: [
                .product(name: "FhirBlocks", package: "OpenHealthKit"),
                .product(name: "SmartHealthCards", package: "OpenHealthKit"),
                .product(name: "FHIRCore", package: "OpenHealthKit"),
                .product(name: "Benchmark", package: "benchmark"),
            ],
            path: "Benchmarks/ParsingBenchmarks",
            swiftSettings: [.enableUpcomingFeature("ExistentialAny")],
            plugins: [
                .plugin(name: "BenchmarkPlugin", package: "benchmark"),
            ]
        ),
        .executableTarget(
            name: "ServerBenchmarks",
            dependencies: [
                "BenchmarkSupport",
                .product(name: "FhirBlocks", package: "OpenHealthKit"),
                .product(name: "FhirBlocksServer", package: "OpenHealthKit"),
                .product(name: "FhirBlocksSQLite", package: "OpenHealthKit"),
                .product(name: "Benchmark", package: "benchmark"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "GRDB", package: "GRDB.swift"),
            ],
            path: "Benchmarks/ServerBenchmarks",
            swiftSettings: [.enableUpcomingFeature("ExistentialAny")],
            plugins: [
                .plugin(name: "BenchmarkPlugin", package: "benchmark"),
            ]
        ),
        // `health ui`'s Summary and Today pages (a year of demo data; a year of minute-level data, in
        // process and through HTTP) against their statistics queries alone.
        .executableTarget(
            name: "UIBenchmarks",
            dependencies: [
                "BenchmarkSupport",
                .product(name: "DemoData", package: "OpenHealthKit"),
                .product(name: "HealthWebApp", package: "OpenHealthKit"),
                .product(name: "OpenHealthKit", package: "OpenHealthKit"),
                .product(name: "Benchmark", package: "benchmark"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
            ],
            path: "Benchmarks/UIBenchmarks",
            swiftSettings: [.enableUpcomingFeature("ExistentialAny")],
            plugins: [
                .plugin(name: "BenchmarkPlugin", package: "benchmark"),
            ]
        ),
        // Issue 34: each page a person waits on (Health cards, the Sharing page's audit search,
        // `Patient/$everything` through HTTP and in the store) at 100 and at 10,000 items.
        .executableTarget(
            name: "PageBenchmarks",
            dependencies: [
                "BenchmarkSupport",
                .product(name: "HealthWebApp", package: "OpenHealthKit"),
                .product(name: "OpenHealthKit", package: "OpenHealthKit"),
                .product(name: "SmartHealthCards", package: "OpenHealthKit"),
                .product(name: "FhirBlocks", package: "OpenHealthKit"),
                .product(name: "FhirBlocksServer", package: "OpenHealthKit"),
                .product(name: "FhirBlocksSQLite", package: "OpenHealthKit"),
                .product(name: "Benchmark", package: "benchmark"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
            ],
            path: "Benchmarks/PageBenchmarks",
            swiftSettings: [.enableUpcomingFeature("ExistentialAny")],
            plugins: [
                .plugin(name: "BenchmarkPlugin", package: "benchmark"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
