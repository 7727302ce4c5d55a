/* Tests that the D3DX-compatible functions give D3DX's numbers: squad
 * setup (including its sign alignment of q0, q2 and q3), squad,
 * barycentric, slerp, exp/ln and yaw-pitch-roll, for fixed inputs.
 *
 * The expected values below were printed by ref/d3dx_quat_ref.py, which
 * implements the documented D3DX definitions in double precision with
 * numpy (slerp cross-checked with scipy's Slerp, yaw-pitch-roll taken from
 * scipy's intrinsic YXZ Euler rotation); see the script for the formulas.
 * The inputs are float32-rounded there exactly as they are here. */
#include "test_math_util.h"

/* float inputs, double reference: a few ulps after exp/ln chains. */
#define TOL_D3DX 1e-6f

/* keys */
static const float keys_in[4][4] = {
    {-0.0399390198, -0.0798780397, -0.119817063, -0.988771081},
    {0, 0.434965521, 0, 0.90044713},
    {-0.531235456, -0, -0.531235456, -0.659983158},
    {0.393370986, -0.393370986, -0.786741972, -0.267498821}};
static const float keys_abc[3][4] = {
    {-0.162033737, 0.570480784, -0.182204699, 0.784281984},
    {0.759501989, -0.244316383, 0.394636877, 0.455771828},
    {0.531235456, 0, 0.531235456, 0.659983158}};
static const float keys_squad[5][4] =
    {/* t = 0, 0.25, 0.5, 0.8, 1 */
     {0, 0.434965521, 0, 0.90044713},
     {0.14795689, 0.381311574, 0.0890647244, 0.90817274},
     {0.359251302, 0.236897571, 0.224040823, 0.874427672},
     {0.52536076, 0.0503818065, 0.411300904, 0.743161697},
     {0.531235456, 0, 0.531235456, 0.659983158}};
/* doc */
static const float doc_in[4][4] = {{0, 0, 0.707106769, -0.707106769},
                                   {0, 0, 0, 1},
                                   {0, 0, 0.707106769, 0.707106769},
                                   {0, 0, 1, 0}};
static const float doc_abc[3][4] = {{0, 0, 0, 1},
                                    {0, 0, 0.707106769, 0.707106769},
                                    {0, 0, 0.707106769, 0.707106769}};
static const float doc_squad[5][4] = {/* t = 0, 0.25, 0.5, 0.8, 1 */
                                      {0, 0, 0, 1},
                                      {0, 0, 0.19509032, 0.98078528},
                                      {0, 0, 0.382683428, 0.923879532},
                                      {0, 0, 0.587785246, 0.80901699},
                                      {0, 0, 0.707106769, 0.707106769}};
static const float bary_fg[4][2] = {
    {0.3, 0.5}, {0.7, 0.1}, {-0.2, 0.6}, {1.3, -0.4}};
static const float bary_out[4][4] =
    {/* barycentric(Q1, Q2, Q3, f, g) */
     {-0.0428841703, 0.356498019, 0.670136974, 0.64960492},
     {0.358625964, 0.158148191, 0.510342627, 0.765458664},
     {-0.395031932, 0.54979757, 0.415517264, 0.6074684},
     {0.750507767, -0.166042162, 0.167313752, 0.617393063}};
static const float slerp_out[3][4] =
    {/* slerp(Q0, Q2, 0.1 0.5 0.9) */
     {-0.0948686733, -0.0731973464, -0.168066023, -0.978466095},
     {-0.306407112, -0.0428506533, -0.349257768, -0.884475841},
     {-0.491185777, -0.00876163917, -0.499947417, -0.713240729}};
static const float ln_q3[4] = {0.751827055, -0.751827055, -1.50365411, 0};
/* exp(0.4, -0.7, 1.1, 0) */
static const float exp_v[4] = {0.287034272, -0.50230996, 0.789344253,
                               0.205503482};
static const float ypr_in[3][3] = {/* yaw, pitch, roll */
                                   {0.3, -1.2, 2.1},
                                   {-2.5, 0.4, -0.9},
                                   {3, 1.5, 0.2}};
static const float ypr_out[3][4] = {
    {-0.170809942, 0.545652977, 0.74986093, 0.332859397},
    {0.460955975, -0.810228768, 0.0353446154, 0.360277241},
    {0.120840349, 0.721396049, -0.671367281, 0.11937891}};

static anim_quat_t q4(const float v[4]) {
  return anim_quat(v[0], v[1], v[2], v[3]);
}

static void check_setup_and_squad(const float in[4][4], const float abc[3][4],
                                  const float sq[5][4]) {
  anim_quat_t a, b, c;
  anim_quat_squad_setup(&a, &b, &c, q4(in[0]), q4(in[1]), q4(in[2]), q4(in[3]));
  ck_assert_quat(a, q4(abc[0]), TOL_D3DX);
  ck_assert_quat(b, q4(abc[1]), TOL_D3DX);
  ck_assert_quat(c, q4(abc[2]), TOL_EXACT);
  static const float ts[5] = {0.0f, 0.25f, 0.5f, 0.8f, 1.0f};
  for (int i = 0; i < 5; i++)
    ck_assert_quat(
        anim_quat_squad(q4(in[1]), q4(abc[0]), q4(abc[1]), q4(abc[2]), ts[i]),
        q4(sq[i]), TOL_D3DX);
}

START_TEST(test_d3dx_squad_setup_keys) {
  check_setup_and_squad(keys_in, keys_abc, keys_squad);
}
END_TEST

START_TEST(test_d3dx_squad_setup_doc_example) {
  check_setup_and_squad(doc_in, doc_abc, doc_squad);
}
END_TEST

START_TEST(test_d3dx_barycentric_slerp) {
  for (int i = 0; i < 4; i++)
    ck_assert_quat(anim_quat_barycentric(q4(keys_in[1]), q4(keys_in[2]),
                                         q4(keys_in[3]), bary_fg[i][0],
                                         bary_fg[i][1]),
                   q4(bary_out[i]), TOL_D3DX);
  static const float ts[3] = {0.1f, 0.5f, 0.9f};
  for (int i = 0; i < 3; i++)
    ck_assert_quat(anim_quat_slerp(q4(keys_in[0]), q4(keys_in[2]), ts[i]),
                   q4(slerp_out[i]), TOL_D3DX);
}
END_TEST

START_TEST(test_d3dx_exp_ln_ypr) {
  ck_assert_quat(anim_quat_ln(q4(keys_in[3])), q4(ln_q3), TOL_D3DX);
  ck_assert_quat(anim_quat_exp(anim_quat(0.4f, -0.7f, 1.1f, 0)), q4(exp_v),
                 TOL_D3DX);
  for (int i = 0; i < 3; i++)
    ck_assert_quat_sign(
        anim_quat_from_yaw_pitch_roll(ypr_in[i][0], ypr_in[i][1], ypr_in[i][2]),
        q4(ypr_out[i]), TOL_D3DX);
}
END_TEST

Suite *quat_d3dx_suite(void) {
  Suite *s = suite_create("quat_d3dx");
  TCase *tc = tcase_create("d3dx");
  tcase_add_test(tc, test_d3dx_squad_setup_keys);
  tcase_add_test(tc, test_d3dx_squad_setup_doc_example);
  tcase_add_test(tc, test_d3dx_barycentric_slerp);
  tcase_add_test(tc, test_d3dx_exp_ln_ypr);
  suite_add_tcase(s, tc);
  return s;
}
