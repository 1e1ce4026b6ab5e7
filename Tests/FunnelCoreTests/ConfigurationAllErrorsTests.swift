import FunnelCore
import Testing

@Suite("Configuration file: every problem at once")
struct ConfigurationAllErrorsTests {
    @Test("each bad line is reported with its line and key, in file order; the good lines still count")
    func everyProblem() throws {
        let text = """
            time_zone = "Mars/Base"
            revenue_share = 0.7
            max_day = 5
            [funnel]
            window_dayz = 3
            [no_such_table]
            x = 1
            [regular_user]
            opens = 0
            """
        let errors = #expect(throws: ConfigurationErrors.self) { try FunnelConfiguration.parseReportingAll(toml: text) }
        #expect(errors?.errors.map(\.line) == [1, 3, 5, 6, 9])
        #expect(errors?.errors.map(\.key) == ["time_zone", "max_day", "funnel.window_dayz", "no_such_table", "regular_user.opens"])
        #expect(errors?.description.hasPrefix("5 problems in the configuration:\n  configuration:1: time_zone: ") == true)
    }

    @Test("a valid file parses as the first-error parser reads it; one problem reads as that problem")
    func sameAsTheParser() throws {
        let text = "time_zone = \"Asia/Tokyo\"\nrevenue_share = 0.7\n[regular_user]\nopens = 2\n"
        #expect(try FunnelConfiguration.parseReportingAll(toml: text) == FunnelConfiguration(toml: text))
        let one = #expect(throws: ConfigurationErrors.self) { try FunnelConfiguration.parseReportingAll(toml: "revenue_share = 2\n") }
        #expect(one?.description == "configuration:1: revenue_share: expected a number from 0.0 to 1.0, got 2.0")
    }

    @Test("a rule across keys is reported once the lines are fixed")
    func ruleAcrossKeys() throws {
        let text = "[verdict]\ndouble_down_ratio = 1.0\ncut_ratio = 2.0\n"
        let errors = #expect(throws: ConfigurationErrors.self) { try FunnelConfiguration.parseReportingAll(toml: text) }
        #expect(errors?.errors.map(\.key) == ["verdict.cut_ratio"])
    }
}
