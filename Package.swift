// swift-tools-version:6.0
// funnel: user-acquisition funnel analytics for mobile apps, over PostgreSQL through libpq.
// Targets follow DESIGN.md: one job each; only PostgresClient imports CLibPQ.
import PackageDescription

let package = Package(
    name: "funnel",
    platforms: [.macOS(.v14)],
    products: [
        .executable(name: "funnel", targets: ["funnel"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.6.0"),
        .package(url: "https://github.com/apple/swift-crypto", from: "3.12.3"),
    ],
    targets: [
        .systemLibrary(name: "CLibPQ", pkgConfig: "libpq", providers: [.apt(["libpq-dev"])]),
        .systemLibrary(name: "CZlib", providers: [.apt(["zlib1g-dev"])]),
        .systemLibrary(name: "CMalloc"),

        .target(name: "FunnelCalendar"),
        .target(name: "PostgresClient", dependencies: [
            "CLibPQ", "FunnelCalendar",
            .product(name: "Logging", package: "swift-log"),
        ]),
        .target(name: "FunnelCore", dependencies: ["FunnelCalendar"]),
        .executableTarget(name: "EmbedSQLTool"),
        .plugin(name: "EmbedSQL", capability: .buildTool(), dependencies: ["EmbedSQLTool"]),
        .target(name: "FunnelSQL", plugins: ["EmbedSQL"]),
        .target(name: "FunnelIngest", dependencies: [
            "FunnelCore", "FunnelCalendar", "FunnelSQL", "PostgresClient", "CZlib", "CMalloc",
            .product(name: "Logging", package: "swift-log"),
            .product(name: "Crypto", package: "swift-crypto"),
        ]),
        .target(name: "FunnelCompute", dependencies: [
            "FunnelCore", "FunnelCalendar", "FunnelSQL", "PostgresClient", "FunnelQuery",
            .product(name: "Logging", package: "swift-log"),
        ]),
        .target(name: "FunnelReports", dependencies: [
            "FunnelCore", "FunnelSQL", "PostgresClient",
        ]),
        .target(name: "FunnelGenerate", dependencies: ["FunnelCore", "FunnelCalendar", "CZlib"]),
        .target(name: "FunnelQuery", dependencies: ["FunnelCore", "FunnelSQL", "PostgresClient"]),
        .target(name: "FunnelPipeline", dependencies: [
            "FunnelCore", "FunnelIngest", "FunnelCompute", "FunnelReports", "FunnelGenerate", "PostgresClient",
            .product(name: "Logging", package: "swift-log"),
        ]),
        .target(name: "FunnelBench", dependencies: [
            "FunnelCore", "FunnelCalendar", "FunnelSQL", "PostgresClient", "FunnelIngest", "FunnelGenerate",
            "FunnelCompute", "FunnelQuery", "FunnelReports", "FunnelPipeline",
            .product(name: "Logging", package: "swift-log"),
        ]),
        .executableTarget(name: "funnel", dependencies: [
            "FunnelPipeline", "FunnelBench",
            "FunnelCore", "FunnelSQL", "PostgresClient", "FunnelIngest", "FunnelCompute",
            "FunnelReports", "FunnelGenerate", "FunnelQuery",
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
            .product(name: "Logging", package: "swift-log"),
        ]),

        .target(name: "TestSupport", dependencies: ["PostgresClient", "FunnelCompute", .product(name: "Logging", package: "swift-log")],
                path: "Tests/TestSupport"),
        .testTarget(name: "PostgresClientTests", dependencies: ["PostgresClient", "TestSupport"]),
        .testTarget(name: "FunnelCoreTests", dependencies: ["FunnelCore"]),
        .testTarget(name: "FunnelComputeTests", dependencies: [
            "FunnelCompute", "FunnelBench", "FunnelQuery", "FunnelSQL", "PostgresClient", "TestSupport", "FunnelGenerate", "FunnelCore",
            "FunnelIngest", "FunnelPipeline", .product(name: "Logging", package: "swift-log"),
        ]),
        .testTarget(name: "FunnelGenerateTests", dependencies: ["FunnelGenerate", "FunnelCore", "FunnelCalendar"]),
        .target(name: "IngestFixtures", dependencies: ["FunnelIngest", "FunnelCore", "CZlib"], path: "Tests/IngestFixtures"),
        .testTarget(name: "FunnelIngestUnitTests", dependencies: ["IngestFixtures", "FunnelBench", "FunnelIngest", "FunnelCore", "FunnelCalendar", "CZlib"]),
        .testTarget(name: "FunnelIngestTests", dependencies: [
            "FunnelGenerate", "FunnelQuery", "IngestFixtures", "FunnelBench",
            "FunnelIngest", "FunnelCore", "PostgresClient", "TestSupport",
        ]),
        .testTarget(name: "FunnelSQLTests", dependencies: ["FunnelSQL"]),
        .testTarget(name: "FunnelPipelineTests", dependencies: ["FunnelPipeline", "FunnelCore", "TestSupport"]),
        .testTarget(name: "FunnelCLITests", dependencies: ["TestSupport", "PostgresClient"]),
        .testTarget(name: "FunnelReportsUnitTests", dependencies: ["FunnelReports", "FunnelCore", "TestSupport"]),
        .testTarget(name: "FunnelReportsTests", dependencies: ["FunnelReports", "FunnelCompute", "FunnelCore", "PostgresClient", "TestSupport"]),
        .testTarget(name: "FunnelDashboardTests", dependencies: [
            "FunnelCompute", "FunnelIngest", "FunnelCore", "FunnelGenerate", "PostgresClient", "TestSupport",
        ]),
    ]
)

// Strict settings, once for every Swift target (as swift-log does).
for target in package.targets where target.type != .system && target.type != .plugin {
    var settings = target.swiftSettings ?? []
    settings.append(.enableUpcomingFeature("ExistentialAny"))
    settings.append(.enableUpcomingFeature("InternalImportsByDefault"))
    settings.append(.enableUpcomingFeature("MemberImportVisibility"))
    target.swiftSettings = settings
}
