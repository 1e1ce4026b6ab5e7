import Foundation
import PostgresClient
import Testing
import TestSupport

/// The Grafana dashboards of `dashboards/grafana/dashboards/`, loaded as Grafana loads them.
struct DashboardFile {
    let name: String
    let json: [String: Any]

    static var directory: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appending(path: "dashboards/grafana/dashboards")
    }

    static func all() throws -> [DashboardFile] {
        let names = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.hasSuffix(".json") }.sorted()
        return try names.map { name in
            let data = try Data(contentsOf: directory.appending(path: name))
            return DashboardFile(name: name, json: try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any]))
        }
    }

    var variables: [[String: Any]] {
        ((json["templating"] as? [String: Any])?["list"] as? [[String: Any]]) ?? []
    }

    /// Every (panel title, panel type, target) of the dashboard, rows' nested panels included.
    var targets: [(title: String, type: String, target: [String: Any])] {
        var panels = (json["panels"] as? [[String: Any]]) ?? []
        panels += panels.flatMap { ($0["panels"] as? [[String: Any]]) ?? [] }
        return panels.flatMap { panel in
            ((panel["targets"] as? [[String: Any]]) ?? []).map {
                (panel["title"] as? String ?? "?", panel["type"] as? String ?? "?", $0)
            }
        }
    }

    /// A view the dashboard reads that this database does not have (nil when all are present).
    func needsMissingView(_ connection: PostgresConnection) throws -> String? {
        let text = String(decoding: try JSONSerialization.data(withJSONObject: json), as: UTF8.self)
        for view in ["dash_friction"] where text.contains(view) {
            if try !connection.query("select to_regclass($1) is not null", [view]).scalar(Bool.self) { return view }
        }
        return nil
    }
}

@Suite("Grafana dashboards")
struct DashboardPanelTests {
    static let from = Date(timeIntervalSince1970: 1_714_521_600)   // 2024-05-01T00:00:00Z
    static let to = Date(timeIntervalSince1970: 1_718_409_600)     // 2024-06-15T00:00:00Z

    @Test("Grafana's PostgreSQL macros expand as the data source expands them")
    func macrosExpandLikeGrafana() throws {
        let query = GrafanaQuery(from: Self.from, to: Self.to, interval: "1h", variables: [
            "app": .init(values: ["com.o'brien"], isMulti: false),
            "network": .init(values: ["meta", "o'net"], isMulti: true),
        ])
        #expect(try query.render("$__timeFilter(time)") == "time BETWEEN '2024-05-01T00:00:00Z' AND '2024-06-15T00:00:00Z'")
        #expect(try query.render("$__timeGroupAlias(time, '1d')") == "floor(extract(epoch from time)/86400)*86400 AS \"time\"")
        #expect(try query.render("$__timeGroup(time, $__interval)") == "floor(extract(epoch from time)/3600)*3600")
        #expect(try query.render("$__time(d)") == "d AS \"time\"")
        #expect(try query.render("$__timeEpoch(d)") == "extract(epoch from d) as \"time\"")
        #expect(try query.render("$__timeFrom() $__timeTo()") == "'2024-05-01T00:00:00Z' '2024-06-15T00:00:00Z'")
        #expect(try query.render("$__unixEpochFilter(t)") == "t >= 1714521600 AND t <= 1718409600")
        #expect(try query.render("$__unixEpochGroupAlias(t, 5m)") == "floor((t)/300)*300 AS \"time\"")
        #expect(try query.render("$__interval_ms") == "3600000")
        #expect(try query.render("'$app' ${app}") == "'com.o''brien' com.o''brien")
        #expect(try query.render("in ($network)") == "in ('meta','o''net')")
        #expect(try query.render("${network:csv}|${network:sqlstring}") == "meta,o'net|'meta','o''net'")
        #expect(throws: GrafanaQuery.Failure.self) { try query.render("$__nope(x)") }
    }

    @Test("every dashboard has the DS data source and app variables and queries dash_* views through ${DS}; the overview also has multi-value network and country variables")
    func dashboardsAreWellFormed() throws {
        let dashboards = try DashboardFile.all()
        #expect(Set(dashboards.map(\.name)).isSuperset(of: ["funnel-overview.json", "funnel-friction.json"]))
        for dashboard in dashboards {
            #expect(dashboard.json["uid"] is String, "\(dashboard.name)")
            let variables = dashboard.variables
            #expect(variables.contains { $0["type"] as? String == "datasource" && $0["name"] as? String == "DS" }, "\(dashboard.name)")
            #expect(variables.contains { $0["name"] as? String == "app" }, "\(dashboard.name)")
            #expect(!dashboard.targets.isEmpty, "\(dashboard.name) has panel queries")
            for (title, _, target) in dashboard.targets {
                let datasource = target["datasource"] as? [String: Any]
                #expect(datasource?["uid"] as? String == "${DS}", "\(dashboard.name): \(title)")
                #expect(datasource?["type"] as? String == "grafana-postgresql-datasource", "\(dashboard.name): \(title)")
                let sql = target["rawSql"] as? String ?? ""
                #expect(!sql.contains("fct_") && !sql.contains("raw_") && !sql.contains("int_"), "\(title) reads dash_* views only")
            }
        }
        let overview = try #require(dashboards.first { $0.name == "funnel-overview.json" })
        for name in ["network", "country"] {
            let variable = try #require(overview.variables.first { $0["name"] as? String == name }, "\(name)")
            #expect(variable["multi"] as? Bool == true, "\(name)")
            #expect(variable["includeAll"] as? Bool == true, "\(name)")
        }
    }

    @Test("every panel query runs as funnel_dashboard, and time series return a time column")
    func everyPanelQueryRuns() throws {
        let connection = try PopulatedDatabase.settings.connect()
        try connection.execute("set role funnel_dashboard")
        var panelsRun = 0
        for dashboard in try DashboardFile.all() {
            if let missing = try dashboard.needsMissingView(connection) {
                // Every view a dashboard reads is created by a migration (dash_friction by 0039),
                // so a missing one is a failure, not a reason to skip the dashboard.
                Issue.record("\(dashboard.name) reads \(missing), which this migrated database lacks")
                continue
            }
            var query = GrafanaQuery(from: Self.from, to: Self.to, interval: "1d", variables: [:])
            for variable in dashboard.variables where variable["type"] as? String == "query" {
                let name = try #require(variable["name"] as? String)
                let sql = try query.render(try #require(variable["query"] as? String))
                let values = try connection.query(sql).map { try $0.decode(String.self, at: 0) }
                #expect(!values.isEmpty, "\(dashboard.name): variable \(name) has values")
                let multi = (variable["multi"] as? Bool ?? false) || (variable["includeAll"] as? Bool ?? false)
                query.variables[name] = .init(values: multi ? values : Array(values.prefix(1)), isMulti: multi)
            }
            for (title, type, target) in dashboard.targets {
                let sql = try query.render(try #require(target["rawSql"] as? String, "\(title)"))
                let result: PostgresResult
                do {
                    result = try connection.query(sql)
                } catch {
                    Issue.record("\(dashboard.name): panel \(title) failed: \(error)\n\(sql)")
                    continue
                }
                panelsRun += 1
                if target["format"] as? String == "time_series" || type == "timeseries" {
                    #expect(target["format"] as? String == "time_series", "\(title)")
                    #expect(result.columns.first?.name == "time", "\(title) returns time first")
                    #expect(!result.isEmpty, "\(title) has points in the range")
                }
            }
        }
        #expect(panelsRun >= 10)
    }
}

@Suite("Grafana CPI panels")
struct DashboardCPIPanelTests {
    /// 2024-05-02: adnova $10 for 5 paid installs ($2.00), invites 3 installs counted paid with no
    /// spend, "Organic" 4 installs and no spend. The CPI panel has no Organic series (matched
    /// case-insensitively) and no $0.00 for the invites (NULL: nothing was paid); the table of
    /// CPI by network gives NULL for both unpaid networks too.
    @Test("the CPI panels leave out organic in any case and give no $0.00 CPI to unpaid traffic")
    func unpaidTraffic() throws {
        let settings = try TestCluster.freshDatabase(migrated: true)
        let connection = try settings.connect()
        for (network, spend, installs, paid) in [("adnova", 10.0, 5, 5), ("invites", 0, 3, 3), ("Organic", 0, 4, 0)] {
            try connection.query("""
                insert into fct_cpi (app_id, date, network, campaign, country, spend, impressions, clicks, installs, paid_installs)
                values ('app', date '2024-05-02', $1, 'c', 'US', $2, 0, 0, $3, $4)
                """, [network, spend, installs, paid])
        }
        let overview = try #require(try DashboardFile.all().first { $0.name == "funnel-overview.json" })
        var query = GrafanaQuery(from: DashboardPanelTests.from, to: DashboardPanelTests.to, interval: "1d", variables: [:])
        query.variables["app"] = .init(values: ["app"], isMulti: false)
        query.variables["network"] = .init(values: ["adnova", "invites", "Organic"], isMulti: true)
        query.variables["country"] = .init(values: ["US"], isMulti: true)
        for title in ["CPI per day by network", "CTR, IPM and CPI by network"] {
            let target = try #require(overview.targets.first { $0.title == title }, "\(title)")
            let result = try connection.query(try query.render(try #require(target.target["rawSql"] as? String)))
            let column = try #require(result.columns.firstIndex { $0.name == "cpi" })
            let nameColumn = try #require(result.columns.firstIndex { $0.name == "metric" || $0.name == "network" })
            var cpi: [String: Double?] = [:]
            for row in result { cpi[try row.decode(String.self, at: nameColumn)] = try row.decode(Double?.self, at: column) }
            #expect(cpi["adnova"] == .some(2), "\(title): \(cpi)")
            #expect(cpi["invites"] == .some(nil), "\(title): \(cpi)")
            if title == "CPI per day by network" {
                #expect(cpi["Organic"] == nil, "\(title): \(cpi)")
            } else {
                #expect(cpi["Organic"] == .some(nil), "\(title): \(cpi)")
            }
        }
    }
}
