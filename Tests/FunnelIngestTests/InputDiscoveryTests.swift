import Foundation
import FunnelIngest
import Testing
import TestSupport

@Suite("Input discovery")
struct InputDiscoveryTests {
    @Test("a directory yields its CSV and NDJSON files, and .json files only when named for a kind")
    func directoryWalk() throws {
        let directory = try TestCluster.makeTemporaryDirectory(prefix: "discovery")
        defer { try? FileManager.default.removeItem(at: directory) }
        let names = ["installs-1.csv", "opens.ndjson.gz", "mixed.jsonl", "purchases-2.json", "truth.json",
                     "notes.txt", ".hidden.csv", "nested/steps.csv"]
        try FileManager.default.createDirectory(at: directory.appending(path: "nested"), withIntermediateDirectories: true)
        for name in names { try Data().write(to: directory.appending(path: name)) }
        let found = try InputDiscovery.expand([directory.path]).map { String($0.dropFirst(directory.path.count + 1)) }
        #expect(found == ["installs-1.csv", "mixed.jsonl", "nested/steps.csv", "opens.ndjson.gz", "purchases-2.json"])
        let explicit = directory.appending(path: "truth.json").path
        #expect(try InputDiscovery.expand([explicit]) == [explicit])
    }
}
