/// The officially assigned ISO 3166-1 alpha-2 country codes and the active ISO 4217 currency
/// codes, as bitmaps indexed by their letters so a lookup is one array read.
enum ISOCodes {
    /// ISO 3166-1 alpha-2, officially assigned (249 codes).
    static let countryList: [String] = """
        AD AE AF AG AI AL AM AO AQ AR AS AT AU AW AX AZ \
        BA BB BD BE BF BG BH BI BJ BL BM BN BO BQ BR BS BT BV BW BY BZ \
        CA CC CD CF CG CH CI CK CL CM CN CO CR CU CV CW CX CY CZ \
        DE DJ DK DM DO DZ EC EE EG EH ER ES ET FI FJ FK FM FO FR \
        GA GB GD GE GF GG GH GI GL GM GN GP GQ GR GS GT GU GW GY \
        HK HM HN HR HT HU ID IE IL IM IN IO IQ IR IS IT JE JM JO JP \
        KE KG KH KI KM KN KP KR KW KY KZ LA LB LC LI LK LR LS LT LU LV LY \
        MA MC MD ME MF MG MH MK ML MM MN MO MP MQ MR MS MT MU MV MW MX MY MZ \
        NA NC NE NF NG NI NL NO NP NR NU NZ OM PA PE PF PG PH PK PL PM PN PR PS PT PW PY QA \
        RE RO RS RU RW SA SB SC SD SE SG SH SI SJ SK SL SM SN SO SR SS ST SV SX SY SZ \
        TC TD TF TG TH TJ TK TL TM TN TO TR TT TV TW TZ UA UG UM US UY UZ \
        VA VC VE VG VI VN VU WF WS YE YT ZA ZM ZW
        """.split(separator: " ").map(String.init)

    /// ISO 4217 codes in use (list one), without the testing and "no currency" codes XTS/XXX.
    /// Recently replaced codes (ANG, CUC, SLL, ZWL) are still accepted: old exports carry them.
    static let currencyList: [String] = """
        AED AFN ALL AMD ANG AOA ARS AUD AWG AZN BAM BBD BDT BGN BHD BIF BMD BND BOB BOV BRL BSD \
        BTN BWP BYN BZD CAD CDF CHE CHF CHW CLF CLP CNY COP COU CRC CUC CUP CVE CZK DJF DKK DOP \
        DZD EGP ERN ETB EUR FJD FKP GBP GEL GHS GIP GMD GNF GTQ GYD HKD HNL HTG HUF IDR ILS INR \
        IQD IRR ISK JMD JOD JPY KES KGS KHR KMF KPW KRW KWD KYD KZT LAK LBP LKR LRD LSL LYD MAD \
        MDL MGA MKD MMK MNT MOP MRU MUR MVR MWK MXN MXV MYR MZN NAD NGN NIO NOK NPR NZD OMR PAB \
        PEN PGK PHP PKR PLN PYG QAR RON RSD RUB RWF SAR SBD SCR SDG SEK SGD SHP SLE SLL SOS SRD \
        SSP STN SVC SYP SZL THB TJS TMT TND TOP TRY TTD TWD TZS UAH UGX USD USN UYI UYU UYW UZS \
        VED VES VND VUV WST XAF XAG XAU XBA XBB XBC XBD XCD XCG XDR XOF XPD XPF XPT XSU XUA YER \
        ZAR ZMW ZWG ZWL
        """.split(separator: " ").map(String.init)

    /// 26 x 26 entries: `countries[(a - 'A') * 26 + (b - 'A')]`.
    static let countries: [Bool] = bitmap(countryList, letters: 2)
    /// 26 x 26 x 26 entries, indexed like ``countries``.
    static let currencies: [Bool] = bitmap(currencyList, letters: 3)

    private static func bitmap(_ codes: [String], letters: Int) -> [Bool] {
        var map = [Bool](repeating: false, count: Int(pow26(letters)))
        for code in codes {
            var index = 0
            for b in code.utf8 { index = index * 26 + Int(b - 0x41) }
            map[index] = true
        }
        return map
    }

    private static func pow26(_ n: Int) -> Int { (0..<n).reduce(1) { acc, _ in acc * 26 } }

    /// The bitmap index of `bytes` upper-cased, if they are exactly `letters` ASCII letters.
    @inline(__always)
    static func index(_ bytes: UnsafeBufferPointer<UInt8>, letters: Int) -> Int? {
        guard bytes.count == letters else { return nil }
        var index = 0
        for b in bytes {
            let upper = b & 0xdf
            guard upper >= 0x41 && upper <= 0x5a, b >= 0x41 else { return nil }
            index = index * 26 + Int(upper - 0x41)
        }
        return index
    }
}
