import FunnelCompute
import FunnelBench
import FunnelCore
import FunnelQuery
import PostgresClient
import Testing

/// A retention named in the configuration (`[[retention]]`) is computed with the evaluator
/// `funnel query retention` uses: the marts equal the same ad hoc query, a folded day equals a
/// full rebuild, and bad definitions name their key.
@Suite("Configured retentions over any event")
struct ConfiguredRetentionTests {
    static var configuration: FunnelConfiguration {
        get throws {
            try FunnelConfiguration(toml: """
                [retention]
                brackets = ["1-2"]

                [[retention]]
                name = "twice_a_day"
                min_occurrences = 2
                periods = 6
                brackets = ["1-3", "4-6"]

                [[retention]]
                name = "weekly_buyers"
                start = "app_open"
                return = "purchase where revenue > 1"
                cohorts = "recurring"
                period = "week"
                periods = 3
                """)
        }
    }

    /// The marts' cells of `retention` for network 'all': [cohort date: [retained per period]].
    static func computed(_ connection: PostgresConnection, _ retention: String, network: String = "all") throws -> [String: [Int]] {
        var cells: [String: [Int]] = [:]
        for row in try connection.query("""
            select cohort_date::text, retained from fct_custom_retention
            where retention = $1 and network = $2 order by cohort_date, period
            """, [retention, network]) {
            cells[try row.decode(String.self, at: 0), default: []].append(try row.decode(Int.self, at: 1))
        }
        return cells
    }

    /// The same retention asked ad hoc, as of the computed last date with data.
    static func adHoc(_ connection: PostgresConnection, _ definition: RetentionDefinition, network: String? = nil) throws -> [String: [Int]] {
        let asOf = try connection.query("select (data_through_date - date '1970-01-01')::integer from compute_state where app_id = 'app'")
            .scalar(Int.self)
        let table = try RetentionQueryRunner(connection: connection)
            .run(definition.spec(timeZone: "UTC", dayRule: .calendar,
                                 breakdown: network.map { _ in FunnelBreakdown(property: "network", source: .person) }),
                 scope: RetentionQueryScope(app: "app", asOfDay: asOf)).table
        let series = network == nil ? table.series.first : table.series.first { $0.value == network }
        return Dictionary(uniqueKeysWithValues: (series?.cohorts ?? []).map {
            (RetentionCalendar.text(ofDay: $0.firstDay), $0.classic.compactMap { $0 })
        }.filter { !$0.1.isEmpty })
    }

    @Test("the computed retentions equal the same ad hoc queries, and a folded day equals a full rebuild")
    func computedEqualsAdHocAndFull() throws {
        let f = try ComputeFixture()
        let config = try Self.configuration
        let history = try SyntheticData.registerFile(f.connection, name: "history.csv")
        try SyntheticData.insert(into: f.connection, app: "app", users: 300, firstDay: "2024-03-01", days: 12, seed: 1, fileID: history)
        _ = try f.compute(config)
        for definition in config.retentions {
            let computed = try Self.computed(f.connection, definition.name)
            #expect(!computed.isEmpty, "\(definition.name)")
            #expect(computed == (try Self.adHoc(f.connection, definition)), "\(definition.name)")
            for network in ["adnova", "organic"] {
                #expect(try Self.computed(f.connection, definition.name, network: network)
                    == (try Self.adHoc(f.connection, definition, network: network)), "\(definition.name) \(network)")
            }
        }
        #expect(try f.int("select count(*) from fct_custom_retention_summary where retention = 'twice_a_day' and measure = 'bracket' and network = 'all'") == 2)
        #expect(try f.int("select count(distinct network) from dash_custom_retention_triangle where retention = 'weekly_buyers'") == 5)

        let day = try SyntheticData.registerFile(f.connection, name: "day.csv")
        try SyntheticData.insert(into: f.connection, app: "app", users: 40, firstDay: "2024-03-13", days: 1, seed: 2, fileID: day)
        try SyntheticData.addActivity(f.connection, app: "app", from: "2024-03-13", to: "2024-03-13", fileID: day)
        let incremental = try f.compute(config)
        #expect(incremental.mode == "incremental")
        let marts = ["int_user_retention", "fct_custom_retention", "fct_custom_retention_summary"]
        var before: [String: [String]] = [:]
        for mart in marts { before[mart] = try f.snapshot(mart) }
        let full = try f.compute(config, full: true)
        #expect(full.mode == "full")
        for mart in marts {
            #expect(try f.snapshot(mart) == before[mart], "\(mart) differs between the folded day and a full rebuild")
        }
        for definition in config.retentions {
            #expect(try Self.computed(f.connection, definition.name) == (try Self.adHoc(f.connection, definition)), "\(definition.name)")
        }
        // A retention dropped from the configuration leaves the marts.
        var fewer = config
        fewer.retentions.removeLast()
        _ = try f.compute(fewer)
        #expect(try f.int("select count(*) from int_user_retention where retention = 'weekly_buyers'") == 0)
        #expect(try f.int("select count(*) from fct_custom_retention where retention = 'weekly_buyers'") == 0)
    }

    @Test("[[retention]] takes the query's definition; [retention] keeps the install brackets; bad keys are named")
    func configuration() throws {
        let config = try Self.configuration
        #expect(config.retentionBrackets == [1...2])
        #expect(config.retentions.map(\.name) == ["twice_a_day", "weekly_buyers"])
        let weekly = config.retentions[1]
        #expect(weekly.start == EventMatcher(events: ["app_open"]))
        #expect(weekly.returning.label == "purchase where revenue > 1")
        #expect(weekly.cohortType == .recurring && weekly.period == .week && weekly.periods == 3)
        #expect(config.retentions[0].start == EventMatcher(events: ["install"]) && config.retentions[0].minOccurrences == 2)
        #expect(config.retentions[0].spec(timeZone: "UTC", dayRule: .hours24).dayRule == .hours24)
        #expect(weekly.spec(timeZone: "UTC", dayRule: .hours24).dayRule == .calendar)
        func failure(_ text: String) -> ConfigurationError? {
            do { _ = try FunnelConfiguration(toml: text); return nil } catch { return error }
        }
        #expect(failure("[[retention]]\nstart = \"install\"")?.key == "retention[0].name")
        #expect(failure("[[retention]]\nname = \"r\"\nstart = \"open where\"")?.key == "retention[0].start")
        #expect(failure("[[retention]]\nname = \"r\"\nreturn = \"\"")?.key == "retention[0].return")
        #expect(failure("[[retention]]\nname = \"r\"\ncohorts = \"first\"")?.key == "retention[0].cohorts")
        #expect(failure("[[retention]]\nname = \"r\"\nperiod = \"year\"")?.key == "retention[0].period")
        #expect(failure("[[retention]]\nname = \"r\"\nperiods = 0")?.key == "retention[0].periods")
        #expect(failure("[[retention]]\nname = \"r\"\nmin_occurrences = 0")?.key == "retention[0].min_occurrences")
        #expect(failure("[[retention]]\nname = \"r\"\nbrackets = [\"3-1\"]")?.key == "retention[0].brackets")
        #expect(failure("[[retention]]\nname = \"r\"\nwindow = \"1d\"")?.key == "retention[0].window")
        #expect(failure("[[retention]]\nname = \"r\"\n[[retention]]\nname = \"r\"")?.key == "retention[1].name")
        // A changed definition changes the fingerprint, so compute rebuilds.
        var changed = config
        changed.retentions[0].minOccurrences = 3
        #expect(changed.fingerprint != config.fingerprint)
    }
}
