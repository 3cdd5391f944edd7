package worker

import (
	"context"
	"fmt"
	"maps"
	"slices"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/server/common/config"
	"go.temporal.io/server/common/log"
	"go.temporal.io/server/common/metrics"
	"go.temporal.io/server/common/persistence"
	"go.temporal.io/server/common/persistence/serialization"
	persistencesql "go.temporal.io/server/common/persistence/sql"
	"go.temporal.io/server/common/resolver"
	"go.temporal.io/server/common/searchattribute/sadefs"
)

// addMissingSearchAttributesToStore gives an existing namespace in the
// embedded server's SQLite database the search attributes it lacks (a data
// dir made by an older MetaForge), by writing the aliases straight into the
// namespace record before the server starts. Every service then loads them
// with the namespace at start, so they are usable at once without
// ForceSearchAttributesCacheRefreshOnRead; added through the OperatorService
// once the server runs, each service would only see them at its next
// namespace-cache refresh (system.namespaceCacheRefreshInterval, 2 s).
func addMissingSearchAttributesToStore(ctx context.Context, conf *config.SQL, namespace, clusterName string) error {
	factory := persistencesql.NewFactory(*conf, resolver.NewNoopResolver(), clusterName, log.NewNoopLogger(),
		metrics.NoopMetricsHandler, serialization.NewSerializer())
	defer factory.Close()
	store, err := factory.NewMetadataStore()
	if err != nil {
		return fmt.Errorf("open the namespace store in %s: %w", conf.DatabaseName, err)
	}
	meta := persistence.NewMetadataManagerImpl(store, serialization.NewSerializer(), log.NewNoopLogger(), clusterName)
	got, err := meta.GetNamespace(ctx, &persistence.GetNamespaceRequest{Name: namespace})
	if err != nil {
		return fmt.Errorf("read namespace %s from %s: %w", namespace, conf.DatabaseName, err)
	}
	detail := got.Namespace
	if detail.Config == nil {
		return fmt.Errorf("namespace %s in %s has no config; remove the data dir to start afresh", namespace, conf.DatabaseName)
	}
	aliases := detail.Config.CustomSearchAttributeAliases
	if aliases == nil {
		aliases = map[string]string{}
	}
	added, err := allocateSearchAttributeFields(aliases, SearchAttributes)
	if err != nil {
		return fmt.Errorf("namespace %s in %s: %w", namespace, conf.DatabaseName, err)
	}
	if added == 0 {
		return nil
	}
	version, err := meta.GetMetadata(ctx)
	if err != nil {
		return fmt.Errorf("read namespace metadata from %s: %w", conf.DatabaseName, err)
	}
	detail.Config.CustomSearchAttributeAliases = aliases
	detail.ConfigVersion++
	if err := meta.UpdateNamespace(ctx, &persistence.UpdateNamespaceRequest{
		Namespace:           detail,
		IsGlobalNamespace:   got.IsGlobalNamespace,
		NotificationVersion: version.NotificationVersion,
	}); err != nil {
		return fmt.Errorf("add search attributes to namespace %s in %s: %w", namespace, conf.DatabaseName, err)
	}
	return nil
}

// allocateSearchAttributeFields maps each wanted attribute that has no field
// yet to the first free preallocated SQL column of its type (Keyword01...),
// as the OperatorService does, and says how many it added.
func allocateSearchAttributeFields(fieldToAlias map[string]string, want map[string]enumspb.IndexedValueType) (int, error) {
	have := map[string]bool{}
	for _, alias := range fieldToAlias {
		have[alias] = true
	}
	columns := sadefs.GetDBIndexSearchAttributes(nil).CustomSearchAttributes
	fields := slices.Sorted(maps.Keys(columns))
	added := 0
	for _, name := range slices.Sorted(maps.Keys(want)) {
		if have[name] {
			continue
		}
		free := ""
		for _, f := range fields {
			if _, used := fieldToAlias[f]; !used && columns[f] == want[name] {
				free = f
				break
			}
		}
		if free == "" {
			return added, fmt.Errorf("no free %s column for search attribute %s (SQLite visibility has a fixed number per type)", want[name], name)
		}
		fieldToAlias[free] = name
		added++
	}
	return added, nil
}
