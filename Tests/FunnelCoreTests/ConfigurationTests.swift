import Foundation
import FunnelCore
import Testing

@Suite("Configuration file")
struct ConfigurationTests {
    @Test("an empty file gives the documented defaults")
    func defaults() throws {
        let config = try FunnelConfiguration(toml: "# nothing\n")
        #expect(config == FunnelConfiguration())
        #expect(config.timeZone == "UTC" && config.dayRule == .calendar)
        #expect(config.regularOpens == 3 && config.regularDays == 7 && config.kFactorWindowDays == 30)
        #expect(config.retentionBrackets == [1...3, 4...7, 8...14])
    }

    @Test("every documented key is read")
    func fullFile() throws {
        let config = try FunnelConfiguration(toml: """
            time_zone = "Asia/Tokyo"
            day_rule = "24h"
            revenue_share = 0.7
            [funnel]
            onboarding_step = "tutorial_done"
            window_days = 3
            purchase_window_days = 14
            [regular_user]
            opens = 4
            days = 10
            [retention]
            brackets = ["1-7",
                        "8-30"]   # multi-line array
            [ltv]
            horizons = [180, 90]
            [kfactor]
            window_days = 14
            [verdict]
            double_down_ratio = 2
            cut_ratio = 0.5
            [[funnels]]
            name = "loop"
            steps = ["install", "open", "invite"]
            order = "strict"
            window_days = 2
            exclude = ["purchase"]
            """)
        #expect(config.timeZone == "Asia/Tokyo" && config.dayRule == .hours24 && config.revenueShare == 0.7)
        #expect(config.onboardingStep == "tutorial_done" && config.windowDays == 3 && config.purchaseWindowDays == 14)
        #expect(config.regularOpens == 4 && config.regularDays == 10 && config.kFactorWindowDays == 14)
        #expect(config.retentionBrackets == [1...7, 8...30] && config.ltvHorizons == [90, 180])
        #expect(config.doubleDownRatio == 2 && config.cutRatio == 0.5)
        #expect(config.funnels == [FunnelDefinition(name: "loop", steps: ["install", "open", "invite"], order: .strict,
                                                    windowDays: 2, exclusions: ["purchase"])])
    }

    private func error(_ text: String) -> ConfigurationError? {
        do {
            _ = try FunnelConfiguration(toml: text)
            return nil
        } catch {
            return error
        }
    }

    @Test("bad values name the key, the line and what is expected")
    func badValues() {
        let zone = error("time_zone = \"Mars/Olympus\"")
        #expect(zone?.key == "time_zone" && zone?.line == 1)
        #expect(zone?.description.contains("IANA time zone") == true)
        let opens = error("[regular_user]\nopens = \"three\"")
        #expect(opens?.key == "regular_user.opens" && opens?.line == 2)
        #expect(opens?.message.contains("whole number") == true)
        #expect(error("revenue_share = 1.5")?.key == "revenue_share")
        #expect(error("day_rule = \"weeks\"")?.message.contains("\"calendar\" or \"24h\"") == true)
        #expect(error("[retention]\nbrackets = [\"3-1\"]")?.key == "retention.brackets")
        #expect(error("[[funnels]]\nname = \"x\"\nsteps = [\"install\", \"open\"]\norder = \"sideways\"")?.key == "funnels[0].order")
        #expect(error("[[funnels]]\nsteps = [\"install\", \"open\"]")?.key == "funnels[0].name")
        #expect(error("[verdict]\ncut_ratio = 2")?.key == "verdict.cut_ratio")
        #expect(error("[verdict]\nmin_installs = 0")?.key == "verdict.min_installs")
        #expect((try? FunnelConfiguration(toml: "[verdict]\nmin_installs = 50\nmin_payers = 5"))?.minInstalls == 50)
    }

    @Test("unknown keys and tables are refused (typos do not pass silently)")
    func unknownKeys() {
        let typo = error("[regular_user]\nopen = 3")
        #expect(typo?.key == "regular_user.open")
        #expect(typo?.message.contains("unknown key") == true)
        #expect(error("[funel]\nwindow_days = 3")?.key == "funel")
    }

    @Test("a control character TOML forbids in a string is refused with the line and the key; a tab is kept")
    func controlCharactersInStrings() throws {
        let forbidden = (0x00...0x1F).filter { $0 != 0x09 && $0 != 0x0A } + [0x7F]
        for code in forbidden {
            let character = String(UnicodeScalar(UInt8(code)))
            let text = "time_zone = \"UTC\"\n[[funnels]]\nname = \"sign\(character)up\"\nsteps = [\"install\", \"open\"]\n"
            let refused = error(text)
            #expect(refused?.line == 3 && refused?.key == "funnels[0].name", "U+\(code): \(String(describing: refused))")
            #expect(refused?.message.contains(String(format: "U+%04X", code)) == true, "U+\(code): \(String(describing: refused))")
            let inList = error("[[funnels]]\nname = \"x\"\nsteps = [\"install\",\n  \"signup where plan = a\(character)b\"]\n")
            #expect(inList?.line == 3 && inList?.key == "funnels[0].steps", "U+\(code): \(String(describing: inList?.description))")
            #expect(error("[[retention]]\nname = \"r\"\nstart = \"a\(character)\"\n")?.key == "retention[0].start")
            #expect(error("[funnel]\nonboarding_step = \"a\(character)\"\n")?.key == "funnel.onboarding_step")
        }
        let tab = try FunnelConfiguration(toml: "[funnel]\nonboarding_step = \"a\tb\"\n")
        #expect(tab.onboardingStep == "a\tb")
        // The file's name comes with it, and the exit code of configuration errors (2) with that.
        let directory = FileManager.default.temporaryDirectory.appending(path: "funnel-config-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appending(path: "funnel.toml").path
        try Data("[[funnels]]\nname = \"a\u{0}b\"\nsteps = [\"install\", \"open\"]\n".utf8).write(to: URL(fileURLWithPath: path))
        #expect(throws: ConfigurationError.self) { try FunnelConfiguration.load(path: path) }
        do {
            _ = try FunnelConfiguration.load(path: path)
        } catch {
            #expect(error.description.hasPrefix("\(path):2: funnels[0].name: a string holds the control character U+0000"))
        }
        #expect(throws: ConfigurationErrors.self) { try FunnelConfiguration.loadReportingAll(path: path) }
    }

    @Test("funnel and retention names: at most 128 bytes and no control character, named with the line")
    func nameLimits() throws {
        func funnel(_ name: String) -> String { "[[funnels]]\nname = \"\(name)\"\nsteps = [\"install\", \"open\"]\n" }
        func retention(_ name: String) -> String { "[[retention]]\nname = \"\(name)\"\n" }
        let longest = String(repeating: "é", count: 64)
        #expect(try FunnelConfiguration(toml: funnel(longest)).funnels.first?.name == longest)
        #expect(try FunnelConfiguration(toml: retention(longest)).retentions.first?.name == longest)
        for (text, key) in [(funnel(longest + "x"), "funnels[0].name"), (retention(longest + "x"), "retention[0].name"),
                            (funnel(String(repeating: "n", count: 1_000_000)), "funnels[0].name")] {
            let refused = error(text)
            #expect(refused?.key == key && refused?.line == 2, "\(String(describing: refused))")
            #expect(refused?.message.hasPrefix("a name has at most 128 bytes (UTF-8), got ") == true, "\(String(describing: refused))")
        }
        let control = error(funnel("a\u{85}b"))
        #expect(control?.key == "funnels[0].name" && control?.message == "a name has no control character, got U+0085 in it")
        #expect(error(retention("a\tb"))?.message == "a name has no control character, got U+0009 in it")
    }

    @Test("steps and exclusions past their limits, and numbers that are not decimal, are refused naming the key and the line")
    func funnelLimits() throws {
        func funnel(steps: Int, exclusions: [String]) -> String {
            let list = (1...steps).map { "\"s\($0)\"" }.joined(separator: ", ")
            return "[[funnels]]\nname = \"f\"\nsteps = [\(list)]\nexclude = [\(exclusions.map { "\"\($0)\"" }.joined(separator: ", "))]\n"
        }
        let hundred = (0..<100).map { "x where n = \($0)" }
        #expect(try FunnelConfiguration(toml: funnel(steps: 30, exclusions: hundred)).funnels.first?.spec.exclusions.count == 100)
        let steps = error(funnel(steps: 31, exclusions: []))
        #expect(steps?.key == "funnels[0].steps" && steps?.line == 3 && steps?.message == "a funnel has at most 30 steps, got 31")
        let exclusions = error(funnel(steps: 2, exclusions: hundred + ["y"]))
        #expect(exclusions?.key == "funnels[0].exclude" && exclusions?.line == 4
                && exclusions?.message == "a funnel has at most 100 exclusions, got 101")
        let hex = error(funnel(steps: 2, exclusions: ["x where n > 0x10"]))
        #expect(hex?.key == "funnels[0].exclude" && hex?.line == 4)
        #expect(hex?.message.contains("expected a decimal number such as 10, -2.5 or 1e3 after '>' or '<', not '0x10'") == true)
        let start = error("[[retention]]\nname = \"r\"\nstart = \"purchase where revenue < 1_000\"\n")
        #expect(start?.key == "retention[0].start" && start?.line == 3 && start?.message.contains("not '1_000'") == true)
    }

    @Test("syntax errors give the line")
    func syntax() {
        #expect(error("a = 1\nb = \"open")?.line == 2)
        #expect(error("just words")?.line == 1)
        #expect(error("[funnel\n")?.line == 1)
    }

    @Test("[ingest], [[ingest.apps]] and [[ingest.files]] are read, leave the fingerprint alone, and refuse bad values")
    func ingest() throws {
        let config = try FunnelConfiguration(toml: """
            [ingest]
            assume_tz = "+02:00"
            max_reject_share = 0.25
            max_expansion = 40
            max_decompressed = "2G"

            [[ingest.apps]]
            app = "com.a"
            assume_tz = "America/New_York"

            [[ingest.files]]
            pattern = "af-*-installs.csv"
            kind = "installs"

            [[ingest.files]]
            pattern = "*.ndjson"
            assume_tz = "UTC"
            """)
        let ingest = config.ingest
        #expect(ingest.assumeTimeZone == "+02:00" && ingest.maxRejectShare == 0.25 && ingest.maxExpansion == 40)
        #expect(ingest.maxDecompressed == "2G" && ingest.appTimeZones == ["com.a": "America/New_York"])
        #expect(ingest.rule(for: "/in/af-2024-05-01-installs.csv")?.kind == "installs")
        #expect(ingest.rule(for: "/in/af-2024-05-01-installs.csv.gz") == nil)
        #expect(ingest.rule(for: "/in/x/events.ndjson")?.assumeTimeZone == "UTC")
        #expect(ingest.rule(for: "ab.csv") == nil)
        #expect(config.fingerprint == FunnelConfiguration().fingerprint)
        #expect(FunnelConfiguration().ingest.maxRejectShare == 0.5)

        #expect(error("[ingest]\nassume_tz = \"Mars/Base\"")?.key == "ingest.assume_tz")
        #expect(error("[ingest]\nmax_reject_share = 1.5")?.key == "ingest.max_reject_share")
        #expect(error("[ingest]\nmax_decompressed = \"lots\"")?.key == "ingest.max_decompressed")
        #expect(error("[[ingest.apps]]\napp = \"a\"")?.key == "ingest.apps[0].assume_tz")
        #expect(error("[[ingest.apps]]\napp = \"a\"\nassume_tz = \"UTC\"\n[[ingest.apps]]\napp = \"a\"\nassume_tz = \"Z\"")?.key == "ingest.apps[1].app")
        #expect(error("[[ingest.files]]\npattern = \"*\"\nkind = \"clicks\"")?.key == "ingest.files[0].kind")
        #expect(error("[[ingest.files]]\nkind = \"opens\"")?.line == 1)
        #expect(error("[ingest.nope]\n") != nil)
        #expect(error("[ingest..x]\n")?.line == 1)
    }
}
