// headingd
// SPDX-License-Identifier: Apache-2.0

import HeadingKit
import HeadingOutputs
import NMEA2000

extension DaemonSettings {
    /// A comment line for each source that chooses an NMEA 2000 device: which device, and what its
    /// NAME says of it (maker, function, instance), so that a NAME copied from a log is recognized.
    private var deviceComments: String {
        sources.enumerated().compactMap { index, source -> String? in
            switch source.selection.device {
            case .firstHeard: return nil
            case .address(let address):
                return "# source \(index + 1): the NMEA 2000 device at address \(address) (an address may change at power-up; a NAME does not)"
            case .name(let name):
                let details = [name.manufacturer.map { "maker \($0)" } ?? "maker code \(name.manufacturerCode)", name.function, "instance \(name.deviceInstance)"]
                    .compactMap { $0 }.joined(separator: ", ")
                return "# source \(index + 1): the NMEA 2000 device whose NAME is \(name) (\(details)), at whatever address it claims"
            }
        }.map { "\n" + $0 }.joined()
    }

    /// The settings as a TOML document, for `--check-config`: every key, each table's in the
    /// order the keys are declared (the root's first, as TOML wants), with its value or a comment
    /// saying it has none.
    var tomlDescription: String {
        SettingKey.byTable(Self.keys).map { group in
            let lines = group.keys.map { key, leaf in
                (key.field.write(self).map { "\(leaf) = \($0)" } ?? "# \(leaf): \(key.field.none)") + (key.name == "source" ? deviceComments : "")
            }
            return (group.table.map { "\n[\($0)]\n" } ?? "") + lines.joined(separator: "\n")
        }.joined(separator: "\n")
    }
}
