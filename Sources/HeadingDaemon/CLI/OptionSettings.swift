// headingd
// SPDX-License-Identifier: Apache-2.0

import Configuration

/// The settings an option group was given, by configuration key: options left out are absent, so
/// the lower layers (environment, files, defaults) decide them.
/// - Parameter pairs: Each key with its option's value, `nil` when the option was not given.
/// - Returns: The given values by key, for ``SettingsLoader/flags``.
func optionSettings(_ pairs: KeyValuePairs<String, ConfigContent?>) -> [String: ConfigContent] {
    var values: [String: ConfigContent] = [:]
    for case (let key, let value?) in pairs { values[key] = value }
    return values
}
