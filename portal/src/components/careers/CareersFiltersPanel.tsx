import { CAREERS_SEARCH_MAX, JOB_LEVELS, JOB_TYPES } from '@exploit-grid/api/contracts/careers-constants';
import Button from '@mui/material/Button';
import Paper from '@mui/material/Paper';
import Typography from '@mui/material/Typography';
import {
  ALL_CATEGORIES,
  ALL_LEVELS,
  ALL_TYPES,
  CATEGORY_LABEL,
  CLEAR_ALL_FILTERS,
  FILTERS_TITLE,
  LEVEL_LABEL,
  LEVEL_LABELS,
  REMOTE_ONLY,
  SEARCH_LABEL,
  SEARCH_PLACEHOLDER,
  TYPE_LABEL,
  TYPE_LABELS,
  categoryOption,
} from '../../strings/careers.ts';
import { Stack } from '../Stack.tsx';
import type { CareersFilters, JobCategory } from './careersApi.ts';
import { CheckField, SearchField, SelectField } from './controls.tsx';

/** The filter sidebar of /careers (spec section 2). */
export function CareersFiltersPanel({
  filters,
  categories,
  onChange,
  onClear,
}: {
  filters: CareersFilters;
  categories: readonly JobCategory[];
  onChange: (change: Partial<CareersFilters>) => void;
  onClear: () => void;
}) {
  return (
    <Paper component="section" variant="outlined" aria-label={FILTERS_TITLE} sx={{ p: 2.5 }}>
      <Typography variant="overline" component="h2" color="text.secondary" sx={{ display: 'block', mb: 1.5 }}>
        {FILTERS_TITLE}
      </Typography>
      <Stack spacing={2.5}>
        <SearchField
          label={SEARCH_LABEL}
          placeholder={SEARCH_PLACEHOLDER}
          value={filters.search}
          maxLength={CAREERS_SEARCH_MAX}
          onChange={(search) => onChange({ search })}
        />
        <SelectField
          label={CATEGORY_LABEL}
          value={filters.category}
          onChange={(category) => onChange({ category })}
        >
          <option value="">{ALL_CATEGORIES}</option>
          {categories.map((c) => (
            <option key={c.category} value={c.category}>
              {categoryOption(c.category, c.count)}
            </option>
          ))}
          {/* A category chosen that has no open job any more stays selectable, so the select shows it. */}
          {filters.category && !categories.some((c) => c.category === filters.category) && (
            <option value={filters.category}>{categoryOption(filters.category, 0)}</option>
          )}
        </SelectField>
        <SelectField label={TYPE_LABEL} value={filters.type} onChange={(type) => onChange({ type })}>
          <option value="">{ALL_TYPES}</option>
          {JOB_TYPES.map((type) => (
            <option key={type} value={type}>
              {TYPE_LABELS[type]}
            </option>
          ))}
        </SelectField>
        <SelectField label={LEVEL_LABEL} value={filters.level} onChange={(level) => onChange({ level })}>
          <option value="">{ALL_LEVELS}</option>
          {JOB_LEVELS.map((level) => (
            <option key={level} value={level}>
              {LEVEL_LABELS[level]}
            </option>
          ))}
        </SelectField>
        <CheckField
          label={REMOTE_ONLY}
          checked={filters.remoteOnly}
          onChange={(remoteOnly) => onChange({ remoteOnly })}
        />
        <Button variant="outlined" onClick={onClear}>
          {CLEAR_ALL_FILTERS}
        </Button>
      </Stack>
    </Paper>
  );
}
