import type { ColumnType, Generated } from 'kysely';

/** Table types of the custom-properties module's migrations (0200). Kept by hand beside the SQL they describe. */
type Timestamp = ColumnType<Date, Date, Date>;

export type CustomPropertyType = 'text' | 'number' | 'date' | 'select' | 'multi_select' | 'checkbox' | 'url';

export interface CustomPropertiesTable {
  id: string;
  workspace_id: string;
  project_id: string;
  name: string;
  name_key: string;
  description: Generated<string>;
  type: CustomPropertyType;
  options: ColumnType<string[], string[] | undefined, string[]>;
  is_required: Generated<boolean>;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface CustomValuesTable {
  workspace_id: string;
  issue_id: string;
  property_id: string;
  /** Written as JSON.stringify(value); read back as the parsed JSON value. */
  value: ColumnType<unknown, string, string>;
  value_text: string | null;
  value_number: number | null;
  value_date: Date | null;
  value_bool: boolean | null;
  value_options: string[] | null;
  updated_at: Timestamp;
}

export interface CustomPropertiesTables {
  custom_properties: CustomPropertiesTable;
  custom_values: CustomValuesTable;
}
