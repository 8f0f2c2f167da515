/**
 * Read forms of catalog records as the interface shows them (decimal strings with 30 fractional
 * digits, timestamps as YYYY-MM-DD HH:MM:SS, is_active 1/0 in single reads).
 */
export interface ConfigurationView {
  id: string;
  version_group_id: string;
  is_active: number | boolean;
  schema_id: string;
  starts_at: string;
  ends_at: string | null;
  price_per_unit: string;
  metric_id: string;
  metric?: { id: string; metric_key: string; name: string; aggregation_type: string };
  created_at: string;
  updated_at: string | null;
}

export interface BillingSchemaView {
  id: string;
  version_group_id: string;
  organization_id: string;
  product_id: string;
  is_active: number | boolean;
  name: string;
  description: string;
  type: 'ONE_TIME' | 'RECURRING';
  currency: string;
  base_price: string;
  interval_type: string | null;
  interval_count: number | null;
  payment_type: string | null;
  renew_type: string | null;
  billing_type: string | null;
  configurations: ConfigurationView[];
  created_at: string;
  updated_at: string | null;
}

/** The product's image file as reads embed it; `url` serves the bytes with a key of the same organization and mode. */
export interface ProductImageView {
  id: string;
  name: string;
  mime_type: string;
  url: string;
}

export interface ProductView {
  id: string;
  version_group_id: string;
  is_active: number | boolean;
  name: string;
  organization_id: string;
  description: string;
  image_id: string | null;
  image: ProductImageView | null;
  metadata: Record<string, string>;
  schemas: BillingSchemaView[];
  created_at: string;
  updated_at: string | null;
}
