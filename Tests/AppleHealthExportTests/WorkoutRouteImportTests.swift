import AppleHealthExport
import AppleHealthExportGenerator
import Foundation
import OpenHealthKit
import Testing
import TestSupport

@Suite("Apple Health import of workout routes")
struct WorkoutRouteImportTests {
    static func folder() throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("export-routes-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder
    }

    static func archive(in folder: URL, gpx: Data?) throws -> URL {
        let url = folder.appendingPathComponent("export.zip")
        let files = gpx.map { [(path: "workout-routes/" + AppleHealthExportGenerator.fullRoute.name, bytes: $0)] } ?? []
        try AppleHealthExportGenerator.writeZip(to: url, exportXML: Data(AppleHealthExportGenerator.full().document().utf8), files: files)
        return url
    }

    static func locations(_ store: HKHealthStore, _ route: HKWorkoutRoute) async throws -> [CLLocation] {
        let inbox = Inbox<(locations: [CLLocation], done: Bool, error: (any Error)?)>()
        store.execute(HKWorkoutRouteQuery(route: route) { _, locations, done, error in inbox.append((locations ?? [], done, error)) })
        var received = 0
        while true {
            let values = await inbox.wait(for: received + 1)
            received = values.count
            guard let last = values.last, last.done else { continue }
            if let error = last.error { throw error }
            return values.flatMap(\.locations)
        }
    }

    static func routes(_ store: HKHealthStore, of workout: HKWorkout? = nil) async throws -> [HKWorkoutRoute] {
        try await withCheckedThrowingContinuation { continuation in
            store.execute(HKSampleQuery(sampleType: HKSeriesType.workoutRoute(), predicate: workout.map { HKQuery.predicateForObjects(from: $0) },
                                        limit: HKObjectQueryNoLimit, sortDescriptors: nil) { _, samples, error in
                if let error { continuation.resume(throwing: error) } else {
                    continuation.resume(returning: (samples ?? []).compactMap { $0 as? HKWorkoutRoute })
                }
            })
        }
    }

    @Test("A workout's GPX route is imported with every point, linked to its workout, and a second run stores nothing twice")
    func importsRoute() async throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let points = AppleHealthExportGenerator.fullRoute.points
        let archive = try Self.archive(in: folder, gpx: Data(AppleHealthExportGenerator.gpx(points).utf8))
        let store = AppleHealthImporterTests.ownerStore()
        // A batch size below the route's length: the route commits in a batch of its own weight.
        let report = try await AppleHealthImporter(batchSize: 50).importExport(at: archive, into: store)
        #expect(report.imported[HKWorkoutRouteTypeIdentifier] == 1)
        #expect(report.skipped.keys.allSatisfy { !$0.contains("WorkoutRoute") })

        let workout = try #require(try await HKSampleQueryDescriptor(predicates: [.workout()], sortDescriptors: []).result(for: store).first)
        let route = try #require(try await Self.routes(store, of: workout).first)
        #expect(route.count == points.count)
        #expect(route.sourceRevision.source.name == "Jane’s Apple Watch")
        #expect(route.startDate == Date(timeIntervalSince1970: TimeInterval(points[0].time)))
        let locations = try await Self.locations(store, route)
        #expect(locations.count == points.count)
        for (location, point) in zip(locations, points) {
            #expect(location.coordinate.latitude == point.latitude && location.coordinate.longitude == point.longitude)
            #expect(location.altitude == point.elevation && location.speed == point.speed)
            #expect(location.timestamp == Date(timeIntervalSince1970: TimeInterval(point.time)))
        }

        let again = try await AppleHealthImporter(batchSize: 50).importExport(at: archive, into: store)
        #expect(try await Self.routes(store).count == 1)
        #expect(try await Self.routes(store, of: workout).count == 1)
        #expect(again.skipped.keys.allSatisfy { !$0.contains("WorkoutRoute") })
        #expect(again.alreadyStored[HKWorkoutRouteTypeIdentifier] == 1)

        // A route already stored is found by its sync identifier before its GPX file is read: gone from the archive, it is
        // still counted as already stored.
        let withoutFile = try await AppleHealthImporter(batchSize: 50).importExport(at: try Self.archive(in: folder, gpx: nil), into: store)
        #expect(withoutFile.alreadyStored[HKWorkoutRouteTypeIdentifier] == 1)
        #expect(withoutFile.skipped.keys.allSatisfy { !$0.contains("WorkoutRoute") })
        #expect(try await Self.routes(store).count == 1)
    }

    @Test("A GPX file missing from the archive or malformed is counted; the workout and everything else are imported")
    func missingAndMalformed() async throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let missing = try await AppleHealthImporter().importExport(at: try Self.archive(in: folder, gpx: nil),
                                                                   into: AppleHealthImporterTests.ownerStore())
        #expect(missing.skipped["WorkoutRoute whose GPX file is missing from the export"] == 1)
        #expect(missing.imported[HKWorkoutTypeIdentifier] == 1 && missing.imported[HKWorkoutRouteTypeIdentifier] == nil)

        let hostile = Data("<?xml version=\"1.0\"?><!DOCTYPE gpx [<!ENTITY x \"x\">]><gpx>&x;</gpx>".utf8)
        let store = AppleHealthImporterTests.ownerStore()
        let malformed = try await AppleHealthImporter().importExport(at: try Self.archive(in: folder, gpx: hostile), into: store)
        #expect(malformed.skipped["WorkoutRoute with a malformed GPX file"] == 1)
        #expect(malformed.imported[HKWorkoutTypeIdentifier] == 1)
        #expect(try await Self.routes(store).isEmpty)
    }
}
